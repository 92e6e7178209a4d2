import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import PassTimes from './vitest.pass-times';
import SlowFirstSequencer from './vitest.sequencer';

const root = fileURLToPath(new URL('../..', import.meta.url));
const at = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/**
 * Every package and app with a vitest config, and the gateway's crash tests (real processes).
 * `database`: where its tests keep data. `both`: the data layer, whose tests also run on PGlite
 * when PostgreSQL is given (see below).
 */
const PROJECTS = [
  { name: 'core', config: 'packages/core/vitest.config.ts', database: false, both: false },
  { name: 'config', config: 'packages/config/vitest.config.ts', database: false, both: false },
  { name: 'auth', config: 'packages/auth/vitest.config.ts', database: false, both: false },
  { name: 'db', config: 'packages/db/vitest.config.ts', database: true, both: true },
  { name: 'api', config: 'packages/api/vitest.config.ts', database: true, both: true },
  { name: 'server', config: 'apps/server/vitest.config.ts', database: true, both: false },
  { name: 'gateway', config: 'apps/gateway/vitest.config.ts', database: true, both: false },
  { name: 'gateway-isolated', config: 'apps/gateway/vitest.isolated.config.ts', database: true, both: false },
  { name: 'gateway-crash', config: 'apps/gateway/vitest.crash.config.ts', database: true, both: true },
  { name: 'web', config: 'apps/web/vitest.config.ts', database: true, both: false },
] as const;

// Without DATABASE_URL every test runs on the embedded PGlite. With it (`pnpm test` in CI), every
// test that touches the database runs on that PostgreSQL (its project's name ends in `:pg`), and
// the data layer (db, api: migrations, queries, locks, money rules) runs on PGlite as well, in the
// same vitest run: PGlite is what `pnpm start` uses, so its dialect and its one-connection locking
// stay tested, while the server, gateway and browser tests, which reach the database only through
// that layer, run once (run twice, they took CI to 25 minutes on 2 cores). The crash project runs
// on both: its launcher and demo suites run only on the embedded database (crash.test.ts). The PGlite
// projects must not see the URL: it is taken out of the environment the workers inherit and given
// back only to the `:pg` projects.
const postgresUrl = process.env.DATABASE_URL ?? '';
delete process.env.DATABASE_URL;

const project = (p: (typeof PROJECTS)[number], pg: boolean): TestProjectInlineConfiguration => ({
  extends: at(p.config),
  root: dirname(at(p.config)),
  ...(pg ? { test: { name: `${p.name}:pg`, env: { DATABASE_URL: postgresUrl } } } : {}),
});
const projects: TestProjectInlineConfiguration[] = postgresUrl
  ? PROJECTS.flatMap((p) => [...(!p.database || p.both ? [project(p, false)] : []), ...(p.database ? [project(p, true)] : [])])
  : PROJECTS.map((p) => project(p, false));

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
