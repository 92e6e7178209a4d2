/**
 * The architecture's "never" rules fail the lint: each package's real eslint config (the one its
 * `lint` script runs) is given an import it must refuse and one it must allow. The type-aware rules
 * are switched off here, since the probed files exist only in memory; the import rules need no types.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { configFor } from './eslint.config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The import restrictions eslint reports for `code` as the file `file` of the package in `dir`. */
async function refusals(dir: string, file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({
    cwd: dir,
    overrideConfigFile: true,
    overrideConfig: [...configFor(dir), { files: ['**/*.{ts,tsx}'], ...tseslint.configs.disableTypeChecked }],
  });
  const [result] = await eslint.lintText(code, { filePath: join(dir, file) });
  return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports' || m.fatal).map((m) => m.message);
}
const inPackage =
  (pkg: string, file = 'src/architecture-probe.ts') =>
  (code: string) =>
    refusals(join(root, pkg), file, code);
const uses = (x: string) => `${x}\nexport const probe: unknown = [];\n`;

describe('the "never" rules', () => {
  it('core depends on nothing of ours', async () => {
    const core = inPackage('packages/core');
    expect(await core(uses("import { users } from '@proxyhub/db';"))).toEqual([expect.stringContaining('Core depends on nothing of ours')]);
    expect(await core(uses("import { z } from 'zod';"))).toEqual([]);
  });

  it('packages never import apps, nor reach into another folder by path', async () => {
    for (const pkg of ['packages/db', 'packages/auth', 'packages/api', 'packages/testing']) {
      expect(await inPackage(pkg)(uses("import { buildServer } from '@proxyhub/server';")), pkg).not.toEqual([]);
    }
    expect(await inPackage('packages/api')(uses("import { buildServer } from '@proxyhub/server';"))).toEqual([
      expect.stringContaining('Packages never import apps'),
    ]);
    expect(await inPackage('packages/api', 'src/services/probe.ts')(uses("import { x } from '../../../../apps/server/src/app';"))).toEqual([
      expect.stringContaining('by its name'),
    ]);
    expect(await inPackage('packages/db')(uses("import { DomainError } from '@proxyhub/core';"))).toEqual([]);
    expect(await inPackage('packages/auth')(uses("import { appRouter } from '@proxyhub/api';"))).toEqual([expect.stringContaining('core and db only')]);
  });

  it("the web never sees the database, auth, secrets or the api at run time; the api's types are fine", async () => {
    const web = inPackage('apps/web', 'src/probe.tsx');
    expect(await web(uses("import { users } from '@proxyhub/db';"))).toEqual([expect.stringContaining('database')]);
    expect(await web(uses("import { hashPassword } from '@proxyhub/auth';"))).toEqual([expect.stringContaining('secrets')]);
    expect(await web(uses("import { loadEnv } from '@proxyhub/core/node';"))).toEqual([expect.stringContaining('never reaches the browser')]);
    expect(await web(uses("import { appRouter } from '@proxyhub/api';"))).toEqual([expect.stringContaining('Only the api')]);
    expect(await web(uses("import type { AppRouter } from '@proxyhub/api';"))).toEqual([]);
    expect(await web(uses("import { registerInput } from '@proxyhub/core';"))).toEqual([]);
  });

  it("the gateway imports core, the api's types and shared packages; it talks to the server only through tRPC", async () => {
    const gateway = inPackage('apps/gateway');
    expect(await gateway(uses("import { gatewayLeases } from '@proxyhub/db';"))).toEqual([expect.stringContaining('database')]);
    expect(await gateway(uses("import { reserveLeases } from '@proxyhub/api';"))).toEqual([expect.stringContaining('through tRPC')]);
    expect(await gateway(uses("import { SecretBox } from '@proxyhub/auth';"))).toEqual([expect.stringContaining('stay on the server')]);
    expect(await gateway(uses("import type { AppRouter } from '@proxyhub/api';"))).toEqual([]);
    // A shared package (which itself may depend on core only) is fine.
    expect(await gateway(uses("import { dial } from '@proxyhub/upstream-dial';"))).toEqual([]);
  });

  it('services never import routers or the tRPC context; routers may', async () => {
    const service = inPackage('packages/api', 'src/services/probe.ts');
    expect(await service(uses("import { createContext } from '../context';"))).toEqual([expect.stringContaining('Services never import')]);
    expect(await service(uses("import { t } from '../trpc';"))).toEqual([expect.stringContaining('Services never import')]);
    expect(await service(uses("import { authRouter } from '../routers/auth';"))).toEqual([expect.stringContaining('Services never import')]);
    // The package's own rules still hold in services.
    expect(await service(uses("import { buildServer } from '@proxyhub/server';"))).toEqual([expect.stringContaining('Packages never import apps')]);
    expect(await service(uses("import { credit } from './wallet';"))).toEqual([]);
    expect(await inPackage('packages/api', 'src/routers/probe.ts')(uses("import { createContext } from '../context';"))).toEqual([]);
  });

  it('hold in the one lint run over every package (the root eslint.config.js that pnpm test runs), each package by its own rules', async () => {
    const { default: rootConfig } = (await import('../../eslint.config.js')) as { default: Linter.Config[] };
    const eslint = new ESLint({
      cwd: root,
      overrideConfigFile: true,
      overrideConfig: [...rootConfig, { files: ['**/*.{ts,tsx}'], ...tseslint.configs.disableTypeChecked }],
    });
    const refused = async (file: string, code: string) => {
      const [result] = await eslint.lintText(code, { filePath: join(root, file) });
      return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports' || m.fatal).map((m) => m.message);
    };
    const db = uses("import { users } from '@proxyhub/db';");
    expect(await refused('apps/gateway/src/probe.ts', db)).toEqual([expect.stringContaining('database')]);
    expect(await refused('apps/web/src/probe.tsx', db)).toEqual([expect.stringContaining('database')]);
    expect(await refused('packages/core/src/probe.ts', db)).toEqual([expect.stringContaining('Core depends on nothing of ours')]);
    expect(await refused('packages/api/src/services/probe.ts', uses("import { t } from '../trpc';"))).toEqual([
      expect.stringContaining('Services never import'),
    ]);
    expect(await refused('apps/server/src/probe.ts', db)).toEqual([]);
  });

  describe('a new shared package', () => {
    const dir = mkdtempSync(join(tmpdir(), 'new-package-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@proxyhub/place-names', type: 'module' }));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('needs no entry: it may depend on core and nothing else of ours', async () => {
      const fresh = (code: string) => refusals(dir, 'src/index.ts', code);
      expect(await fresh(uses("import { DomainError } from '@proxyhub/core';"))).toEqual([]);
      expect(await fresh(uses("import { users } from '@proxyhub/db';"))).toEqual([expect.stringContaining('nothing of ours but core')]);
      expect(await fresh(uses("import { Gateway } from '@proxyhub/gateway';"))).toEqual([expect.stringContaining('nothing of ours but core')]);
    });
  });
});
