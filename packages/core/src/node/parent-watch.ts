import { Worker } from 'node:worker_threads';

/**
 * A process started with an IPC channel (the launcher's children, the gateway's relay) shuts down
 * when its parent goes away, however the parent died: the kernel closes the channel with the
 * parent, `kill -9` included, so nothing is left orphaned holding a port or the database.
 * A process started any other way (systemd, a shell, a test) is left alone. Forced after 10 s, not
 * 30: nobody waits on an orphan's requests, and the next launcher waits for its ports (a busy CI
 * machine saw an orphaned server outlive 30 s).
 */
export function exitWithParent(forceAfterMs = 10_000): void {
  if (!process.channel) return;
  // The parent read our output too: once it is gone a log line must not crash the shutdown.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  }
  const parentGone = () => {
    setTimeout(() => process.exit(1), forceAfterMs).unref();
    killFromOutsideTheLoop(forceAfterMs + 2000);
    // The same graceful path as a stop from the parent; before a handler exists it simply ends us.
    process.kill(process.pid, 'SIGTERM');
  };
  process.once('disconnect', parentGone);
  // A parent killed while this process was still loading its modules closed the channel before the
  // listener existed: the event is gone, the state is not (this left an orphaned server behind).
  if (!process.connected) parentGone();
}

/**
 * The timer above needs the event loop, and the embedded database's close holds it synchronously
 * (a checkpoint written through the file system: it outlasted 30 s on a busy CI machine). A worker
 * thread has its own loop, so this kill comes on time whatever the main thread is doing.
 */
function killFromOutsideTheLoop(afterMs: number): void {
  const worker = new Worker(`setTimeout(() => process.kill(process.pid, 'SIGKILL'), ${Math.floor(afterMs)});`, { eval: true });
  worker.unref();
}
