import { fileURLToPath } from 'node:url';
import { build } from 'vite';

/** Builds the web app once per test run into apps/web/dist, which the test server then serves. */
export default async function setup() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  await build({ root, configFile: `${root}/vite.config.ts`, logLevel: 'warn', mode: 'production' });
}
