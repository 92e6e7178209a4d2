import { defineProject } from 'vitest/config';

// Real processes killed with kill -9: the built server and gateway. The suites are one file
// (test/crash/crash.test.ts), so they run one after another beside the other projects' files.
export default defineProject({
  test: {
    name: 'gateway-crash',
    include: ['test/crash/**/*.test.ts'],
    globalSetup: ['test/crash/build.setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
