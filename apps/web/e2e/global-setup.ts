import { fileURLToPath } from 'node:url';
import { build } from 'vite';

/** Builds the web app once per test run into apps/web/dist, which the test server then serves. */
export default async function setup() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  // vitest sets NODE_ENV=test, and vite keeps a NODE_ENV it finds: without this the tests would
  // drive React's development build, not the production build users get.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ root, configFile: `${root}/vite.config.ts`, logLevel: 'warn', mode: 'production' });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
}
