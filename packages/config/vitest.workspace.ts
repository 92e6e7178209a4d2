import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import PassTimes from './vitest.pass-times';
import SlowFirstSequencer from './vitest.sequencer';

const root = fileURLToPath(new URL('../..', import.meta.url));
const at = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/** Every package and app with a vitest config, and the gateway's crash tests (real processes). */
const PROJECTS = [
  { name: 'core', config: 'packages/core/vitest.config.ts', database: false },
  { name: 'config', config: 'packages/config/vitest.config.ts', database: false },
  { name: 'auth', config: 'packages/auth/vitest.config.ts', database: false },
  { name: 'db', config: 'packages/db/vitest.config.ts', database: true },
  { name: 'api', config: 'packages/api/vitest.config.ts', database: true },
  { name: 'server', config: 'apps/server/vitest.config.ts', database: true },
  { name: 'gateway', config: 'apps/gateway/vitest.config.ts', database: true },
  { name: 'gateway-isolated', config: 'apps/gateway/vitest.isolated.config.ts', database: true },
  { name: 'gateway-crash', config: 'apps/gateway/vitest.crash.config.ts', database: true },
  { name: 'web', config: 'apps/web/vitest.config.ts', database: true },
] as const;

// `pnpm test` with DATABASE_URL set runs everything on the embedded PGlite and, in the same run,
// every project that touches the database once more against that PostgreSQL (its name ends in
// `:pg`). The PGlite projects must not see the URL: it is taken out of the environment the
// workers inherit and given back only to the `:pg` projects.
const postgresUrl = process.env.DATABASE_URL ?? '';
delete process.env.DATABASE_URL;

const projects: TestProjectInlineConfiguration[] = PROJECTS.map((p) => ({ extends: at(p.config), root: dirname(at(p.config)) }));
if (postgresUrl) {
  for (const p of PROJECTS.filter((x) => x.database)) {
    projects.push({ extends: at(p.config), root: dirname(at(p.config)), test: { name: `${p.name}:pg`, env: { DATABASE_URL: postgresUrl } } });
  }
}

export default defineConfig({
  test: {
    root,
    // Most test files wait on sockets, child processes and the database rather than the CPU, so
    // two more workers than the two cores of the CI machine keep both cores busy.
    maxWorkers: 4,
    sequence: { sequencer: SlowFirstSequencer },
    reporters: ['default', new PassTimes()],
    projects,
  },
});
