/**
 * SIGINT/SIGTERM end a process gracefully once: `stop` runs, then the process exits 0, or 1 if
 * `stop` fails or outlasts `forceAfterMs` (a stuck shutdown must not keep the port or the database).
 */
export function stopOnSignals(
  stop: () => Promise<void>,
  opts: { forceAfterMs: number; logger: { info(o: object, msg: string): void; error(o: object, msg: string): void }; message: string },
): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      opts.logger.info({ signal }, opts.message);
      const force = setTimeout(() => process.exit(1), opts.forceAfterMs).unref();
      stop().then(
        () => {
          clearTimeout(force);
          process.exit(0);
        },
        (err: unknown) => {
          opts.logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}
