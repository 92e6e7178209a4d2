import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Builds the web app into apps/web/dist, which the test server then serves: through turbo, as the
 * crash tests build the server and gateway, so a run whose web sources are unchanged since the last
 * build (CI's second pass) restores the same dist from turbo's cache instead of building it again.
 */
export default function setup(): void {
  execFileSync('pnpm', ['turbo', 'run', 'build', '--filter=@proxyhub/web', '--only', '--output-logs=errors-only'], {
    cwd: fileURLToPath(new URL('../../..', import.meta.url)),
    // vitest sets NODE_ENV=test, and vite keeps a NODE_ENV it finds: without this the tests would
    // drive React's development build, not the production build users get.
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: 'inherit',
  });
}
