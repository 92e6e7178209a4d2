import { configDefaults, defineProject } from 'vitest/config';

/** Files that need a process of their own (vitest.isolated.config.ts). */
export const ISOLATED = ['test/robustness.test.ts'];

export default defineProject({
  test: {
    name: 'gateway',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'test/crash/**', ...ISOLATED],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Files share their worker's modules (importing the server and the gateway anew for each of
    // 37 files cost minutes of CI); the few that count the process's own files get their own.
    isolate: false,
  },
});
