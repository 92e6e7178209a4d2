/**
 * Target rules in Chromium: on Settings (the main account) a bad pattern is refused with its name
 * and nothing is saved, a deny list is saved as the server normalizes it; on the proxy accounts page
 * a sub-account gets an allow list of its own. Then the Dashboard's bandwidth-burn card: what this
 * month's analytics and font hosts cost, and "Block for this account" adding them to the rules.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { recordBase, signUpAndLogIn, startE2E, type E2E } from './harness';

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

describe('bandwidth-burn card', () => {
  it('shows what blocking the hosts would have saved, lists them, and blocks them for the chosen account', async () => {
    const me = await page.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: { proxyUserId: string; proxyPassword: string } }).user);
    const base = await recordBase(e2e, me);
    const GIB = 1024 ** 3;
    const now = Date.now();
    const record = (target: string, billed: number, i: number) => ({
      ...base,
      id: randomUUID(),
      startedAt: now - 60_000 + i,
      endedAt: now - 50_000 + i,
      protocol: 'connect' as const,
      target,
      bytesDown: billed,
      billedBytes: billed,
      outcome: 'ok' as const,
    });
    await e2e.internal.gateway.report.mutate({
      gatewayId: 'e2e-burn',
      seq: 1,
      items: [],
      connections: [record('www.google-analytics.com:443', 1.5 * GIB, 1), record('fonts.gstatic.com:443', GIB / 2, 2), record('shop.example:443', 3 * GIB, 3)],
    });
    await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
    await expect.poll(() => page.getByTestId('burn-summary').innerText()).toBe('Blocking these hosts would have saved 2.00 GB ($1.80) this month');
    const rows = page.getByTestId('burn-hosts').locator('tbody tr');
    await expect
      .poll(() => rows.allInnerTexts())
      .toEqual([
        expect.stringMatching(/www\.google-analytics\.com\s+Analytics\s+1\.50 GB\s+\$1\.35/),
        expect.stringMatching(/fonts\.gstatic\.com\s+Fonts\s+0\.50 GB\s+\$0\.45/),
      ]);
    // The main account is chosen by default; its deny list (from the test above) gains the two hosts.
    expect(await page.getByLabel('Proxy account').inputValue()).toBe('main');
    await page.getByRole('button', { name: 'Block for this account' }).click();
    await page.getByText('Blocked 2 hosts for Main account (4 blocked in all).', { exact: false }).waitFor();
    expect(await rulesOf('main')).toEqual({
      mode: 'deny',
      patterns: ['google-analytics.com', '*.doubleclick.net', 'www.google-analytics.com', 'fonts.gstatic.com'],
    });
  });
});
