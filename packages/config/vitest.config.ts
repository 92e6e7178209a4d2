import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'config', include: ['*.test.ts'], testTimeout: 60_000 },
});
