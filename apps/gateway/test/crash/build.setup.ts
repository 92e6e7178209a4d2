import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/** The crash tests run the built processes: build them first (turbo skips what is up to date). */
export default function setup(): void {
  execFileSync('pnpm', ['turbo', 'run', 'build', '--filter=@proxyhub/server', '--filter=@proxyhub/gateway', '--output-logs=errors-only'], {
    cwd: resolve(import.meta.dirname, '../../../..'),
    stdio: 'inherit',
  });
}
