import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'web',
    include: ['e2e/**/*.test.ts'],
    globalSetup: ['e2e/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    isolate: false,
    // A browser test that fails on CI runs once more: a renderer starved on the loaded 2-core
    // machine once stopped painting one page for a minute (every click waited on a frame) while
    // the same test passes alone and under load. A real failure still fails twice.
    retry: process.env.CI ? 1 : 0,
    // A page on the loaded CI machine can take seconds to show what a poll waits for (a billing
    // list that took longer failed at vitest's 1 s default).
    expect: { poll: { timeout: 10_000 } },
  },
});
