import { configDefaults, defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'gateway',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'test/crash/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    isolate: false,
  },
});
