/**
 * Target rules in Chromium: on Settings (the main account) a bad pattern is refused with its name
 * and nothing is saved, a deny list is saved as the server normalizes it; on the proxy accounts page
 * a sub-account gets an allow list of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let page: Page;

beforeAll(async () => {
  e2e = await startE2E();
  page = await e2e.newPage();
  await signUpAndLogIn(e2e, page, 'Rules Tester');
});
afterAll(async () => {
  await e2e?.close();
});

type Rules = { mode: string; patterns: string[] };
const rulesOf = (id: string) => page.evaluate(async (id) => (await (await fetch(`/api/proxy-accounts/${id}/targets`)).json()) as Rules, id);

describe('target rules', () => {
  it("Settings edits the main account's rules; the proxy accounts page a sub-account's", async () => {
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('heading', { name: 'Target rules' }).waitFor();
    const form = page.getByRole('form', { name: 'Target rules of the main account' });
    const box = form.getByLabel('Targets for the main account');
    await expect.poll(() => box.getAttribute('readonly')).toBeNull();
    await box.fill('google-analytics.com\nnot a host');
    await form.getByRole('button', { name: 'Save target rules' }).click();
    await form.getByText('Patterns: invalid pattern "not a host"').waitFor();
    expect(await rulesOf('main')).toEqual({ mode: 'deny', patterns: [] });

    await box.fill('Google-Analytics.com\n\n*.doubleclick.net\ngoogle-analytics.com');
    await form.getByRole('button', { name: 'Save target rules' }).click();
    await form.getByText('Saved 2 patterns: these targets are refused. Every gateway applies them within 10 seconds.').waitFor();
    expect(await rulesOf('main')).toEqual({ mode: 'deny', patterns: ['google-analytics.com', '*.doubleclick.net'] });
    expect(await box.inputValue()).toBe('google-analytics.com\n*.doubleclick.net');

    // A sub-account on the proxy accounts page: allow only one shop.
    await page.evaluate(async () => {
      await fetch('/api/proxy-accounts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Shop bot' }) });
    });
    await page.getByRole('link', { name: 'Proxy accounts', exact: true }).click();
    const row = page.getByRole('region', { name: 'Shop bot proxy account' });
    await row.getByText('Target rules', { exact: true }).click();
    const subForm = row.getByRole('form', { name: 'Target rules of Shop bot' });
    await expect.poll(() => subForm.getByLabel('Targets for Shop bot').getAttribute('readonly')).toBeNull();
    await subForm.getByLabel('Rule for Shop bot').selectOption('allow');
    await subForm.getByLabel('Targets for Shop bot').fill('shop.example');
    await subForm.getByRole('button', { name: 'Save target rules' }).click();
    await subForm.getByText('Saved 1 pattern: only these targets are allowed.', { exact: false }).waitFor();
    const sub = await page.evaluate(async () =>
      ((await (await fetch('/api/proxy-accounts')).json()) as { accounts: { proxyUserId: string; kind: string }[] }).accounts.find((a) => a.kind === 'sub')!,
    );
    expect(await rulesOf(sub.proxyUserId)).toEqual({ mode: 'allow', patterns: ['shop.example'] });
    // The main account's rules are untouched.
    expect(await rulesOf('main')).toEqual({ mode: 'deny', patterns: ['google-analytics.com', '*.doubleclick.net'] });
  });
});
