import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './vitest.sequencer';

// Every package and app with a vitest config is one project of the single `vitest run` that
// `pnpm test` starts from the repository root; the gateway's crash tests (real processes) are one more.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    // Most test files wait on sockets, child processes and the database rather than the CPU, so
    // two more workers than the two cores of the CI machine keep both cores busy.
    maxWorkers: 4,
    sequence: { sequencer: SlowFirstSequencer },
    projects: ['packages/*/vitest.config.ts', 'apps/*/vitest.config.ts', 'apps/gateway/vitest.crash.config.ts'],
  },
});
