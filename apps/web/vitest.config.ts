import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'web',
    include: ['e2e/**/*.test.ts'],
    globalSetup: ['e2e/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    isolate: false,
  },
});
