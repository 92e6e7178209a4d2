// Shared flat config: typescript-eslint's recommended rules, the few the house cares about,
// type-aware rules for the bugs types can see (a promise nobody awaits, a value printed as
// "[object Object]", a switch that forgets a case), and the architecture's "never" rules for the
// package being linted (architecture.js).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import tseslint from 'typescript-eslint';
import { architecture } from './architecture.js';

/** The config for the package in `packageDir` (its package.json names it, which picks its rules). */
export function configFor(packageDir) {
  const { name } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  return tseslint.config(
    { ignores: ['**/dist/**', '**/drizzle/**', '**/node_modules/**', '**/.data/**', '**/test-results/**'] },
    ...tseslint.configs.recommended,
    {
      rules: {
        '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
        '@typescript-eslint/consistent-type-imports': 'error',
        'no-console': 'off',
      },
    },
    {
      files: ['**/*.ts', '**/*.tsx'],
      // Tool configs sit outside the packages' TypeScript projects.
      ignores: ['**/*.config.ts'],
      languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: packageDir } },
      rules: {
        '@typescript-eslint/no-floating-promises': 'error',
        '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
        '@typescript-eslint/await-thenable': 'error',
        '@typescript-eslint/no-unnecessary-type-assertion': 'error',
        '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
        '@typescript-eslint/only-throw-error': 'error',
        '@typescript-eslint/no-base-to-string': 'error',
        '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      },
    },
    ...architecture(name),
    // The gateway's modules stay small enough to read whole (the report wing's renovation split the
    // 600-line ones); a file that grows past this is split by what it does.
    ...(name === '@proxyhub/gateway' ? [{ files: ['src/**/*.ts'], rules: { 'max-lines': ['error', { max: 400 }] } }] : []),
  );
}

// Each package lints from its own folder (`eslint .` in its `lint` script).
export default configFor(process.cwd());
