import { Worker } from 'node:worker_threads';
import { takeParentPid } from './env';

/**
 * A process its parent must not leave behind (the launcher's children, the gateway's relay) shuts
 * down when that parent goes away, however it died, `kill -9` included, so nothing is left
 * orphaned holding a port or the database. The parent names itself in PROXYHUB_PARENT_PID
 * (`envForWatchedChild`) and the child checks its own parent pid against it, from its first line
 * and then on a short interval: Linux has a parent-death signal (prctl) but Node offers none.
 *
 * Why the parent's word and not `process.ppid` read here: a launcher killed while its child was
 * still loading its modules had died before the child first looked, so the child read pid 1 as its
 * parent and watched that for ever; its IPC channel had closed before any listener existed while
 * `process.connected` still read true (an orphaned server served /health for 24 minutes). The
 * channel's 'disconnect' stays as the quick path. A process started any other way (systemd, a
 * shell, a test) is left alone. Forced after 10 s, not 30: nobody waits on an orphan's requests,
 * and the next launcher waits for its ports.
 */
export function exitWithParent(forceAfterMs = 10_000): void {
  const parentPid = takeParentPid() ?? (process.channel ? process.ppid : null);
  if (parentPid === null) return;
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
  watchFromOutsideTheLoop(parentPid, parentGone, forceAfterMs + 2000);
  if (process.channel) process.once('disconnect', parentGone);
  if (process.ppid !== parentPid) parentGone();
}

/**
 * The channel's 'disconnect' and the timer above both need the event loop, which synchronous work
 * can hold: the embedded database's close (a checkpoint written through the file system outlasted
 * 30 s on a busy CI machine), or its queries when the parent dies. A worker thread has its own
 * loop: it sees the process handed to another parent, tells the main thread, and kills the process
 * `killAfterMs` later if the graceful path has not ended it, whatever the main thread is doing.
 */
function watchFromOutsideTheLoop(parentPid: number, parentGone: () => void, killAfterMs: number): void {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
    const check = () => {
      if (process.ppid === workerData.parentPid) return;
      clearInterval(timer);
      parentPort.postMessage('parent gone');
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), workerData.killAfterMs);
    };
    const timer = setInterval(check, 200);
    check();`,
    { eval: true, workerData: { parentPid, killAfterMs: Math.floor(killAfterMs) } },
  );
  worker.on('message', parentGone);
  worker.unref();
}
