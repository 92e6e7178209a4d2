import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { WEB_DIST, fieldErrors, signUpAndLogIn, startE2E, uniqueEmail, type E2E } from './harness';

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
});
afterAll(async () => {
  await e2e?.close();
});

/** The build's manifest: source module or shared chunk -> its file under dist/. */
const manifest = JSON.parse(readFileSync(join(WEB_DIST, '.vite/manifest.json'), 'utf8')) as Record<string, { file: string; name?: string }>;
const pageChunk = (page: string) => `/${manifest[`src/pages/${page}.tsx`]!.file}`;
/**
 * The chart library's chunk (recharts and d3), shared by the dashboard, billing and admin pages:
 * found by recharts' own class name, as rollup names a shared chunk after whichever of its modules comes first.
 */
const chartChunk = `/${Object.values(manifest).find((c) => c.file.endsWith('.js') && readFileSync(join(WEB_DIST, c.file), 'utf8').includes('recharts-wrapper'))!.file}`;
const SIGNED_IN_ONLY = ['dashboard', 'admin', 'proxies', 'proxy-accounts', 'api-settings', 'topup', 'billing'].map(pageChunk);
const namedChunk = (name: string) => `/${Object.values(manifest).find((c) => c.name === name)!.file}`;
/** The data layer: the tRPC hooks with TanStack Query, and the providers module that sets them up. */
const DATA_LAYER = ['trpc', 'data-providers'].map(namedChunk);
/** What a signed-out form loads when used: the vanilla tRPC client with superjson, the core schemas, zod. */
const FORM_DEPS = ['api', 'form-schemas', 'zod'].map(namedChunk);

/** Records the path of every script the page fetches. */
function scriptsOf(page: Page): Set<string> {
  const seen = new Set<string>();
  page.on('request', (r) => {
    if (r.resourceType() === 'script') seen.add(new URL(r.url()).pathname);
  });
  return seen;
}

describe('code split per page', () => {
  it('signed-out pages load none of the dashboard, admin or other signed-in pages, nor the chart library, the data layer or zod', async () => {
    for (const [path, ready] of [
      ['/', 'ProxyHub'],
      ['/login', 'Sign In'],
      ['/forgot-password', 'Forgot Password'],
      ['/reset-password', 'Invalid Reset Link'],
      ['/verify-email', 'Verification Failed'],
      ['/pricing', 'Pricing'],
      ['/locations', 'Locations'],
      ['/status', 'Status'],
      ['/terms', 'Terms of Service'],
    ] as const) {
      // A fresh profile each time: nothing cached from the page before.
      const page = await (await e2e.newContext()).newPage();
      const scripts = scriptsOf(page);
      await page.goto(path, { waitUntil: 'networkidle' });
      await page.getByRole('heading', { name: ready }).first().waitFor();
      if (path === '/login') {
        // The register form is the same page: it loads nothing more.
        await page.getByRole('button', { name: 'Create Account' }).click();
        await page.getByLabel('Full Name').waitFor();
      }
      expect(scripts.size, path).toBeGreaterThan(0);
      for (const chunk of [...SIGNED_IN_ONLY, chartChunk, ...DATA_LAYER, ...FORM_DEPS]) expect(scripts, `${path} loaded ${chunk}`).not.toContain(chunk);
      await page.context().close();
    }
  });

  it('a signed-out form loads the tRPC client and the schemas when used, and still validates and submits', async () => {
    const page = await (await e2e.newContext()).newPage();
    const scripts = scriptsOf(page);
    await page.goto('/forgot-password', { waitUntil: 'networkidle' });
    await page.getByRole('heading', { name: 'Forgot Password' }).waitFor();
    for (const chunk of FORM_DEPS) expect(scripts).not.toContain(chunk);
    // Submitted without a focus first: the schemas load on submit, the spec's message shows.
    await page.getByRole('button', { name: 'Send Reset Link' }).dispatchEvent('click');
    await expect.poll(() => fieldErrors(page)).toEqual(['Email is required']);
    await page.getByLabel('Email').fill(uniqueEmail('chunks'));
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();
    for (const chunk of FORM_DEPS) expect(scripts).toContain(chunk);
    for (const chunk of DATA_LAYER) expect(scripts).not.toContain(chunk);
    await page.context().close();
  });

  it('signing in from /login loads the data layer only on the way to the dashboard', async () => {
    const page = await (await e2e.newContext()).newPage();
    const { email, password } = await signUpAndLogIn(e2e, page, 'Lazy Sign-in');
    await page.context().close();
    // A fresh profile: the sign-in itself, from an empty cache and no session.
    const fresh = await (await e2e.newContext()).newPage();
    const seen = scriptsOf(fresh);
    await fresh.goto('/login', { waitUntil: 'networkidle' });
    for (const chunk of [...DATA_LAYER, ...FORM_DEPS]) expect(seen).not.toContain(chunk);
    await fresh.getByLabel('Email').fill(email);
    await fresh.getByLabel('Password').fill(password);
    await fresh.getByRole('button', { name: 'Sign In', exact: true }).click();
    await fresh.waitForURL('**/dashboard');
    await fresh.getByTestId('user-name').waitFor();
    expect(await fresh.getByTestId('user-name').innerText()).toBe('Lazy Sign-in');
    for (const chunk of [...DATA_LAYER, ...FORM_DEPS]) expect(seen).toContain(chunk);
    await fresh.context().close();
  });

  it('a signed-in page loads its own chunk when opened (the check above sees chunks)', async () => {
    const page = await e2e.newPage();
    const scripts = scriptsOf(page);
    await signUpAndLogIn(e2e, page, 'Chunk Tester');
    await page.getByTestId('usage-chart').waitFor();
    expect(scripts).toContain(pageChunk('dashboard'));
    expect(scripts).toContain(chartChunk);
    expect(scripts).not.toContain(pageChunk('admin'));
    await page.getByRole('link', { name: 'Proxies', exact: true }).click();
    await page.getByRole('heading', { name: 'Generate Proxies' }).waitFor();
    expect(scripts).toContain(pageChunk('proxies'));
  });
});
