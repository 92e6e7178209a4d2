import { configDefaults, defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'gateway',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'test/crash/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A fresh process per file, unlike the other projects: robustness.test.ts counts the process's
    // open files and times idle tunnels, which a worker reused by earlier files can disturb.
    isolate: true,
  },
});
