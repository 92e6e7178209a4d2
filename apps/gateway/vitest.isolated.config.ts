import { defineProject } from 'vitest/config';
import { ISOLATED } from './vitest.config';

// A fresh process per file: robustness.test.ts counts the process's open files and times idle
// tunnels, which a worker reused by earlier files could disturb.
export default defineProject({
  test: { name: 'gateway-isolated', include: ISOLATED, testTimeout: 60_000, hookTimeout: 60_000, isolate: true },
});
