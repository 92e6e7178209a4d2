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
  let gone = false;
  const parentGone = () => {
    if (gone) return;
    gone = true;
    setTimeout(() => process.exit(1), forceAfterMs).unref();
    // The same graceful path as a stop from the parent; before a handler exists it simply ends us.
    process.kill(process.pid, 'SIGTERM');
  };
  watchFromOutsideTheLoop(parentGone, forceAfterMs + 2000);
  process.once('disconnect', parentGone);
  // A parent killed while this process was still loading its modules closed the channel before the
  // listener existed: the event is gone, the state is not (this left an orphaned server behind).
  if (!process.connected) parentGone();
}

/**
 * The channel's 'disconnect' and the timer above both need the event loop, which synchronous work
 * can hold: the embedded database's close (a checkpoint written through the file system outlasted
 * 30 s on a busy CI machine), or its queries when the parent dies (a launcher's server was still
 * running 30 s after the launcher's kill -9 on a loaded CI machine). A worker thread has its own
 * loop: it sees the process handed to another parent, tells the main thread, and kills the process
 * `killAfterMs` later if the graceful path has not ended it, whatever the main thread is doing.
 */
function watchFromOutsideTheLoop(parentGone: () => void, killAfterMs: number): void {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
    const timer = setInterval(() => {
      if (process.ppid === workerData.ppid) return;
      clearInterval(timer);
      parentPort.postMessage('parent gone');
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), workerData.killAfterMs);
    }, 200);`,
    { eval: true, workerData: { ppid: process.ppid, killAfterMs: Math.floor(killAfterMs) } },
  );
  worker.on('message', parentGone);
  worker.unref();
}
