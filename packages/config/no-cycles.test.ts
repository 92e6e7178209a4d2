/**
 * No import circles in the source of apps/ and packages/, type-only imports included: a circle
 * makes a module's parts impossible to load, test or move apart. dependency-cruiser's no-circular
 * rule over every package's and app's src, resolved through the root tsconfig (as the typecheck).
 */
import { fileURLToPath } from 'node:url';
import { cruise, type IViolation } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SOURCES = [
  'apps/gateway/src',
  'apps/server/src',
  'apps/web/src',
  'packages/core/src',
  'packages/db/src',
  'packages/auth/src',
  'packages/api/src',
  'packages/testing/src',
];

/** Each circle dependency-cruiser finds in `paths`, as "a -> b -> ... -> a". */
async function circles(paths: string[]): Promise<string[]> {
  const cwd = process.cwd();
  process.chdir(root);
  try {
    const result = await cruise(paths, {
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      exclude: { path: 'node_modules' },
      tsConfig: { fileName: 'tsconfig.json' },
      validate: true,
      ruleSet: { forbidden: [{ name: 'no-circular', severity: 'error', from: {}, to: { circular: true } }] },
    });
    if (typeof result.output === 'string') throw new Error('dependency-cruiser answered text');
    return result.output.summary.violations.map((v: IViolation) => [v.from, ...(v.cycle ?? []).map((c) => c.name)].join(' -> '));
  } finally {
    process.chdir(cwd);
  }
}

describe('import circles', () => {
  it('there are none in apps/ and packages/ (type-only imports count)', async () => {
    expect(await circles(SOURCES)).toEqual([]);
  });

  it('a circle is found, a type-only one too', async () => {
    const found = await circles(['packages/config/test-fixtures/circle']);
    expect(found).toEqual([expect.stringMatching(/circle\/a\.ts -> .*circle\/b\.ts -> .*circle\/a\.ts|circle\/b\.ts -> .*circle\/a\.ts -> .*circle\/b\.ts/)]);
  });
});
