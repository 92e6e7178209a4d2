import { defineProject } from 'vitest/config';

// Real processes killed with kill -9: the built server and gateway, one test at a time.
export default defineProject({
  test: {
    name: 'gateway-crash',
    include: ['test/crash/**/*.test.ts'],
    globalSetup: ['test/crash/build.setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
