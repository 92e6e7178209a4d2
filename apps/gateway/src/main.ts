// Entry point. The relay runs in a child process started with tuned allocator and heap settings,
// which only take effect at process start (both measured with the bench, on this machine):
// - glibc: a socket read outside the shared read buffers (HTTP-forward clients, upstream proxies)
//   allocates a 64 KiB buffer; by default the freed heap top goes back to
//   the kernel and is faulted in again thousands of times a second (strace: ~6,000 brk calls per
//   2 GiB relayed). MALLOC_TOP_PAD_ and MALLOC_TRIM_THRESHOLD_ end that (see malloc-tuning.ts).
// - V8: with the default initial old-space limit the process ran ~70 full mark-compacts per
//   2 GiB relayed (external buffer churn keeps hitting the limit); --initial-old-space-size=64
//   brings that to one, and relay throughput up by about a third.
// This process only passes signals on and exits with the child. Each of the two exits when its
// parent dies (kill -9 included), so a relay is never left orphaned on the gateway port.
import { spawn } from 'node:child_process';
import { envForWatchedChild, exitWithParent } from '@proxyhub/core/node';
import { tunedLaunch } from './env';
import { tuneMallocForRelaying } from './malloc-tuning';

exitWithParent();
const launch = tunedLaunch();
if (launch) {
  const child = spawn(process.execPath, [...launch.nodeFlags, ...process.execArgv, ...process.argv.slice(1)], {
    env: envForWatchedChild(launch.env),
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  tuneMallocForRelaying();
  await import('./serve');
}
