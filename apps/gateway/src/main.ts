// Entry point. Relaying allocates a 64 KiB buffer per socket read; with glibc's default settings
// the freed heap top goes back to the kernel and is faulted in again thousands of times a second
// (malloc-tuning.ts). The settings can only come from the environment at start, so without them
// the gateway re-starts itself once with them, as a child that inherits stdio and signals.
import { spawn } from 'node:child_process';
import { allocatorEnv } from './env';
import { tuneMallocForRelaying } from './malloc-tuning';

const env = allocatorEnv();
if (env) {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { env, stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  tuneMallocForRelaying();
  await import('./serve');
}
