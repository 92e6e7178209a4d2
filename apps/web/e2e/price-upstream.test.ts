/**
 * Issue 44's first customer and first operator, in Chromium at 1366x800 and 390x844: one price for
 * the smallest order everywhere (and where an amount is made whole); an upstream from a preset
 * refused until its account part and password are in, saved disabled, its Test with a check URL
 * answering in one sentence with the raw text under Details; a pool dearer than a GB is sold warned
 * on its row, the Pricing tab and the overview; the generator saying how long the provider keeps an
 * IP for the chosen country.
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startFakeConnectProvider } from '@proxyhub/testing';
import { adminLogIn, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

const SIZES = [
  { label: '1366x800', width: 1366, height: 800 },
  { label: '390x844', width: 390, height: 844 },
] as const;

let e2e: E2E;
let admin: Page;
let customer: Page;
/** A plain HTTP page: an https:// check URL on its port meets no TLS. */
let plain: Server;
/** A provider speaking HTTP CONNECT on loopback. */
let provider: Awaited<ReturnType<typeof startFakeConnectProvider>>;

async function listening(s: Server): Promise<number> {
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  return (s.address() as AddressInfo).port;
}

beforeAll(async () => {
  e2e = await startE2E();
  plain = createHttpServer((_req, res) => res.end('{"ip":"127.0.0.1"}'));
  provider = await startFakeConnectProvider();
  await listening(plain);
  admin = await e2e.newPage();
  admin.on('dialog', (d) => void d.accept());
  await adminLogIn(admin);
  customer = await e2e.newPage();
  await signUpAndLogIn(e2e, customer, 'First Customer');
});
afterAll(async () => {
  plain?.close();
  await provider?.close();
  await e2e?.close();
});

describe.each(SIZES)('at $label', ({ label, width, height }) => {
  it('states one price for the smallest order, and says where an amount is made whole', async () => {
    const visitor = await (await e2e.newContext()).newPage();
    await visitor.setViewportSize({ width, height });
    await visitor.goto('/');
    await expect.poll(() => visitor.locator('body').innerText()).toContain('the smallest order 12 GB for $10.80');
    expect(await visitor.locator('body').innerText()).not.toContain('($10.00)');
    await visitor.goto('/pricing');
    await expect.poll(() => visitor.getByTestId('min-order').innerText()).toBe('12 GB for $10.80');

    await customer.setViewportSize({ width, height });
    await customer.goto('/topup');
    const amount = customer.getByLabel('Amount (GB)');
    await amount.waitFor();
    expect(await customer.locator('main').innerText()).toContain('The smallest order is 12 GB for $10.80.');
    await amount.fill('12.5');
    await expect.poll(() => customer.locator('main').innerText()).toContain('Whole GB only: 12.5 becomes 12');
    await amount.blur();
    expect(await amount.inputValue()).toBe('12');
    // Still said once the field reads 12, and the button charges what the page stated.
    expect(await customer.locator('main').innerText()).toContain('Whole GB only: 12.5 becomes 12');
    expect(await customer.getByRole('button', { name: 'Pay $10.80 with Crypto' }).isEnabled()).toBe(true);
    await amount.fill('11');
    await expect.poll(() => customer.locator('main').innerText()).toContain('Minimum order is 12GB ($10)');
    await screenshots(customer, `topup-whole-gb-${label}`);
    await customer.setViewportSize({ width, height });
  });

  it('refuses an untouched preset, saves a new upstream disabled, and tests it with a check URL in one sentence', async () => {
    await admin.setViewportSize({ width, height });
    await admin.getByRole('tab', { name: 'Upstreams', exact: true }).click();
    const form = admin.getByTestId('upstream-form');
    await form.getByLabel('Provider preset').selectOption('Oxylabs');
    await form.getByLabel('Name', { exact: true }).fill(`Oxylabs ${label}`);
    await form.getByRole('button', { name: 'Add upstream' }).click();
    await form.getByText("Username template: replace USERNAME with your account's").waitFor();
    await form.getByText('Password is required').waitFor();
    expect(await form.innerText()).toContain('A new upstream is saved disabled: press Test on its row, and Enable it once the test works.');

    // The account filled in, pointed at the loopback provider; a cost above the $0.90 sale price.
    await form.getByLabel('Host').fill('127.0.0.1');
    await form.getByLabel('Port').fill(String(provider.port));
    await form.getByLabel('Username template').fill((await form.getByLabel('Username template').inputValue()).replace('USERNAME', 'acme'));
    await form.getByLabel('Password', { exact: true }).fill('pw');
    await form.getByLabel('Countries').fill('US');
    await form.getByLabel('Cost per GB ($)').fill('3.50');
    expect(await form.getByLabel('Longest session (minutes)').inputValue()).toBe('30');
    await form.getByRole('button', { name: 'Add upstream' }).click();
    const row = admin.getByTestId('upstreams-table').locator(`tr[data-upstream="Oxylabs ${label}"]`);
    await expect.poll(() => row.innerText()).toContain('Disabled');
    const warning = `Oxylabs ${label} costs $3.50 per GB, more than the $0.90 per GB it is sold for: every GB through it loses money`;
    expect(await row.getByTestId('upstream-cost-warning').innerText()).toBe(warning);

    await row.getByRole('button', { name: 'Test' }).click();
    const test = admin.getByTestId('upstream-test');
    const checkUrl = test.getByLabel('Check URL');
    expect(await checkUrl.getAttribute('placeholder')).toBe('https://api.ipify.org/?format=json');
    await checkUrl.fill(`https://127.0.0.1:${(plain.address() as AddressInfo).port}/`);
    await test.getByRole('button', { name: 'Run test' }).click();
    const answer = admin.getByTestId('upstream-test-answer');
    await expect.poll(() => answer.innerText(), { timeout: 15_000 }).toContain('The upstream did not answer TLS on this port: check the port and the protocol');
    // The raw words stay one click away.
    const details = answer.getByTestId('upstream-test-details');
    expect(await details.locator('pre').isVisible()).toBe(false);
    await details.getByText('Details').click();
    expect(await details.locator('pre').innerText()).toMatch(/wrong version number|EPROTO|SSL/i);
    await screenshots(admin, `upstream-test-tls-${label}`);
    await admin.setViewportSize({ width, height });

    // A plain http:// check URL through the same upstream works: then the admin enables it.
    await checkUrl.fill(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/`);
    await test.getByRole('button', { name: 'Run test' }).click();
    await expect.poll(() => answer.innerText(), { timeout: 15_000 }).toContain('OK: 200');
    await test.getByRole('button', { name: 'Close' }).click();
    await row.getByRole('button', { name: 'Enable' }).click();
    await expect.poll(() => row.innerText()).toContain('Enabled');

    // The same warning on the Pricing tab and the overview.
    await admin.getByRole('tab', { name: 'Pricing' }).click();
    const pricingTab = admin.getByRole('tabpanel').filter({ has: admin.getByTestId('pricing-form') });
    await expect.poll(() => pricingTab.getByTestId('cost-warnings').innerText()).toContain(warning);
    // The overview, above the tabs.
    const overview = admin.getByTestId('cost-warnings').first();
    await expect.poll(() => overview.innerText()).toContain(warning);
    expect(await overview.evaluate((el) => el.closest('[role=tabpanel]'))).toBeNull();
  });

  it('says for the chosen country how long the provider keeps an IP when the chosen session is longer', async () => {
    await customer.setViewportSize({ width, height });
    await customer.goto('/proxies');
    await customer.getByRole('heading', { name: 'Generate Proxies' }).waitFor();
    // The enabled Oxylabs pool serves US with sessions of at most 30 minutes.
    await customer.getByLabel('Country').selectOption('US');
    const duration = customer.getByLabel('Session Duration');
    await duration.selectOption('10');
    expect(await customer.getByTestId('session-limit-note').count()).toBe(0);
    await duration.selectOption('10080');
    await expect
      .poll(() => customer.getByTestId('session-limit-note').innerText())
      .toBe('Sticky for longer than the provider gives: this provider keeps an IP at most 30 minutes in US, then the line goes on with a new one.');
    await screenshots(customer, `generator-session-limit-${label}`);
  });
});
