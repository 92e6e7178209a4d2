import type { Backend } from './backend';
import type { Logger } from './log';

/**
 * Settles the leases an earlier process with this gateway id left open (a crash), before taking
 * traffic so that no lease of ours is released by mistake. The server may still be starting beside
 * us, so this waits for it a little; after that the server reconciles them on its own.
 */
export async function releaseEarlierLeases(backend: Backend, gatewayId: string, logger: Logger, waitMs = 30_000): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const r = await backend.releaseLeases({ gatewayId });
      if (r.released) logger.info({ leases: r.released }, 'settled leases left by an earlier run');
      return;
    } catch (err) {
      if (Date.now() > deadline) {
        logger.warn({ err }, 'could not settle earlier leases (the server reconciles them after their timeout)');
        return;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
