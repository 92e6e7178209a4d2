import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { COPIED_MS } from '@proxyhub/core';
import { ADMIN, fieldErrors, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let user: Page;
let userEmail: string;
let admin: Page;
let adminContext: BrowserContext;
let codes: string[] = [];

beforeAll(async () => {
  e2e = await startE2E();
  user = await e2e.newPage();
  ({ email: userEmail } = await signUpAndLogIn(e2e, user, 'Credit Tester'));
  adminContext = await e2e.newContext();
  admin = await adminContext.newPage();
});
afterAll(async () => {
  await e2e?.close();
});

const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());
const balance = (page: Page) => page.getByTestId('balance').innerText();

describe('admin panel', () => {
  it('admin login: validation, wrong credentials, then the panel', async () => {
    await admin.goto('/admin');
    await admin.getByRole('heading', { name: 'Admin Login' }).waitFor();
    await screenshots(admin, 'admin-login');
    const signIn = admin.getByRole('button', { name: 'Sign In' });
    await signIn.click();
    expect(await fieldErrors(admin)).toEqual(['Username is required', 'Password is required']);
    await admin.getByLabel('Username').fill(ADMIN.username);
    expect(await fieldErrors(admin)).toEqual(['Password is required']);
    await admin.getByLabel('Password').fill('wrong-password');
    await signIn.click();
    await expect.poll(() => admin.getByRole('alert').first().innerText()).toMatch(/invalid/i);
    await admin.getByLabel('Password').fill(ADMIN.password);
    await signIn.click();
    await admin.getByRole('heading', { name: 'Admin Panel' }).waitFor();
    expect(await admin.getByTestId('admin-username').innerText()).toBe(ADMIN.username);
    expect(await admin.evaluate(() => sessionStorage.getItem('adminLoggedIn'))).toBe('true');
    // Global usage: the three usage types.
    for (const t of ['normal_proxy', 'shop_proxy_regular', 'shop_proxy_admin']) {
      await expect.poll(() => admin.getByTestId(`usage-${t}`).innerText()).toMatch(/\d+\.\d{2} GB/);
    }
    await expect.poll(() => admin.getByRole('tab', { name: /^Users \(\d+\)$/ }).count()).toBe(1);
    expect(await admin.getByRole('tab', { name: 'Generate Codes' }).getAttribute('aria-selected')).toBe('true');
  });

  it('generate codes: validation, then codes that copy one by one and all at once', async () => {
    const creditsGB = admin.getByLabel('Credits (GB)');
    const quantity = admin.getByLabel('Quantity');
    const generate = admin.getByRole('button', { name: 'Generate Codes' });
    await creditsGB.fill('');
    await quantity.fill('');
    await generate.click();
    expect(await fieldErrors(admin)).toEqual(['Credits (GB) must be a number', 'Quantity must be a number']);
    await creditsGB.fill('0.05');
    await quantity.fill('101');
    await generate.click();
    expect(await fieldErrors(admin)).toEqual(['Credits must be at least 0.1 GB', 'Quantity must be at most 100']);
    await creditsGB.fill('1.25');
    await quantity.fill('0');
    await generate.click();
    expect(await fieldErrors(admin)).toEqual(['Credits must be in steps of 0.1 GB', 'Quantity must be at least 1']);
    await screenshots(admin, 'admin-codes-errors');

    await creditsGB.fill('1.5');
    await quantity.fill('3');
    await admin.getByLabel('Expires At (optional)').fill('2099-12-31T23:59');
    const list = admin.getByTestId('code-list');
    const shown = async () => (await list.locator('.code-value').allInnerTexts()).map((c) => c.trim());
    // Codes of an earlier attempt of this test (a retry) may still be listed: wait for new ones.
    const earlier = (await shown()).join();
    await generate.click();
    await expect.poll(async () => (await shown()).join()).not.toBe(earlier);
    codes = await shown();
    expect(codes).toHaveLength(3);
    for (const c of codes) expect(c).toMatch(/^[A-Z0-9]{8,20}$/);
    // The list speaks in GB, like every other GB figure (the codes themselves may hold "MB").
    for (const detail of await list.locator('li .muted').allInnerTexts()) {
      expect(detail).toMatch(/^1\.50 GB · expires /);
      expect(detail).not.toContain('MB');
    }
    await screenshots(admin, 'admin-codes');

    await admin.getByRole('button', { name: `Copy code ${codes[1]}` }).click();
    await admin
      .getByRole('button', { name: `Copy code ${codes[1]}` })
      .filter({ hasText: 'Copied!' })
      .waitFor();
    expect(await clipboard(admin)).toBe(codes[1]);
    await admin.getByRole('button', { name: 'Copy all codes' }).click();
    await expect.poll(() => clipboard(admin)).toBe(codes.join('\n'));
  });

  it('users tab lists users with the count', async () => {
    await admin.getByRole('tab', { name: /^Users/ }).click();
    const table = admin.getByTestId('users-table');
    await table.getByText(userEmail).waitFor();
    const tab = await admin.getByRole('tab', { name: /^Users/ }).innerText();
    const count = Number(/\((\d+)\)/.exec(tab)![1]);
    expect(count).toBeGreaterThanOrEqual(1);
    expect(await table.locator('tbody tr').count()).toBe(Math.min(count, 25));
    const row = table.locator('tr', { hasText: userEmail });
    expect(await row.innerText()).toContain('Credit Tester');
    expect(await row.innerText()).toContain('0.00 GB');
    await screenshots(admin, 'admin-users');
    await admin.getByLabel('Search users').fill('no-such-user-anywhere');
    await table.getByText('No users found.').waitFor();
    await admin.getByLabel('Search users').fill(userEmail);
    await table.getByText(userEmail).waitFor();
  });
});

describe('top up', () => {
  it('redeem a code made by the admin: validation, uppercase, balance change, used code', async () => {
    await user.getByRole('link', { name: 'Top Up', exact: true }).click();
    await user.getByRole('heading', { name: 'Top Up' }).waitFor();
    expect(await balance(user)).toBe('0.00 GB');
    const text = await user.locator('main').innerText();
    expect(text).toContain('300+ cryptocurrencies');
    expect(text).toMatch(/chat bot, a promotion or a giveaway/);
    const input = user.getByLabel('Top-up Code');
    const redeem = user.getByRole('button', { name: 'Redeem Code' });
    await input.fill('   ');
    await redeem.click();
    expect(await fieldErrors(user)).toEqual(['Please enter a code']);
    await input.fill('abc');
    expect(await fieldErrors(user)).toEqual([]);
    expect(await input.inputValue()).toBe('ABC');
    await input.fill('x'.repeat(30));
    expect(await input.inputValue()).toHaveLength(20);
    await screenshots(user, 'topup');

    await input.fill(codes[0]!.toLowerCase());
    expect(await input.inputValue()).toBe(codes[0]);
    await redeem.click();
    // The spec's message in MB, with the same amount in GB beside it.
    await user.getByText('Successfully redeemed 1536 MB (1.50 GB)').waitFor();
    await expect.poll(() => balance(user)).toBe('1.50 GB');
    await input.fill(codes[0]!);
    await redeem.click();
    await user.getByText('This code has already been redeemed.').waitFor();
    await user.getByRole('link', { name: 'Dashboard', exact: true }).click();
    await expect.poll(() => user.getByTestId('remaining-data').innerText()).toBe('1.50 GB');
  });

  it('crypto order: minimum, total, pay through the sandbox, failed payment', async () => {
    await user.getByRole('link', { name: 'Top Up', exact: true }).click();
    const amount = user.getByLabel('Amount (GB)');
    expect(await amount.inputValue()).toBe('12');
    expect(await user.getByTestId('order-total').innerText()).toBe('$10.80');
    expect(await user.getByRole('button', { name: 'Pay $10.80 with Crypto' }).isEnabled()).toBe(true);
    // What the smallest order costs is on the page, whatever is typed.
    expect(await user.locator('main').innerText()).toContain('The smallest order is 12 GB for $10.80.');
    const pay = user.getByRole('button', { name: /^Pay .*with Crypto$/ });
    for (const below of ['11', '1', '', '0']) {
      await amount.fill(below);
      // The spec's message, a disabled button, and no price for an order that cannot be placed.
      expect(await fieldErrors(user)).toEqual(['Minimum order is 12GB ($10)']);
      expect(await pay.isDisabled()).toBe(true);
      expect(await pay.innerText()).toBe('Pay with Crypto');
      expect(await user.getByTestId('order-total').innerText()).toBe('—');
      expect(await user.locator('main').innerText()).not.toContain('$10.00');
    }
    await amount.fill('11');
    await screenshots(user, 'topup-minimum');
    await amount.fill('100001');
    expect(await fieldErrors(user)).toEqual(['Maximum order is 100000GB']);
    expect(await user.getByTestId('order-total').innerText()).toBe('—');
    expect(await pay.isDisabled()).toBe(true);
    await amount.fill('20');
    expect(await fieldErrors(user)).toEqual([]);
    expect(await user.getByTestId('order-total').innerText()).toBe('$18.00');
    await pay.click();
    await user.waitForURL('**/sandbox/pay/**');
    expect(await user.locator('body').innerText()).toContain('20 GB');
    await user.getByTestId('sandbox-pay').click();
    await user.waitForURL((u) => u.pathname === '/topup' && u.searchParams.get('payment') === 'finished');
    await expect.poll(() => balance(user)).toBe('21.50 GB');
    expect(await user.getByRole('status').first().innerText()).toMatch(/Payment received/);
    await screenshots(user, 'topup-paid');

    await user.getByLabel('Amount (GB)').fill('15');
    await user.getByRole('button', { name: /^Pay \$/ }).click();
    await user.waitForURL('**/sandbox/pay/**');
    await user.getByTestId('sandbox-fail').click();
    await user.waitForURL((u) => u.pathname === '/topup' && u.searchParams.get('payment') === 'failed');
    await user.getByRole('alert').filter({ hasText: 'did not go through' }).waitFor();
    expect(await balance(user)).toBe('21.50 GB');
  });

  it('network failures show the screen fallbacks', async () => {
    await user.route('**/trpc/credits.**', (route) => route.abort('connectionrefused'));
    await user.getByLabel('Amount (GB)').fill('12');
    await user.getByRole('button', { name: /^Pay \$/ }).click();
    await user.getByRole('alert').filter({ hasText: 'Network error. Please try again.' }).waitFor();
    await user.getByLabel('Top-up Code').fill('ANYCODE');
    await user.getByRole('button', { name: 'Redeem Code' }).click();
    await user.getByRole('alert').filter({ hasText: 'Failed to redeem code. Please try again.' }).waitFor();
    await user.unroute('**/trpc/credits.**');
  });
});

describe('settings', () => {
  it('shows and copies the API key (Copied for 2 seconds)', async () => {
    await user.getByRole('link', { name: 'Settings', exact: true }).click();
    await user.getByRole('heading', { name: 'Settings' }).waitFor();
    const key = await user.getByTestId('api-key').inputValue();
    expect(key.length).toBeGreaterThan(20);
    const copy = user.getByRole('button', { name: 'Copy API key' });
    // "Copied!" stays 2 s from the click (timed from it: the test may notice the label late).
    const clickedAt = Date.now();
    await copy.click();
    await copy.filter({ hasText: 'Copied!' }).waitFor();
    expect(await clipboard(user)).toBe(key);
    await screenshots(user, 'settings');
    await copy.filter({ hasText: /^Copy$/ }).waitFor({ timeout: 5000 });
    expect(Date.now() - clickedAt).toBeGreaterThanOrEqual(COPIED_MS);
  });

  it('associates a batch made with the internal key; validation and unknown batch', async () => {
    const batchId = user.getByLabel('Batch ID');
    const submit = user.getByRole('button', { name: 'Associate Batch' });
    await submit.click();
    expect(await fieldErrors(user)).toEqual(['Please enter a batch ID']);
    await batchId.fill('not-a-batch');
    expect(await fieldErrors(user)).toEqual([]);
    await submit.click();
    await expect.poll(() => user.getByRole('alert').first().innerText()).not.toBe('');
    const batch = await e2e.internal.credits.createBatch.mutate({ accounts: 2, creditsGB: 1, usageType: 'shop_proxy_regular' });
    await batchId.fill(batch.batchId);
    await submit.click();
    await user.getByText('Batch associated: 2 proxy accounts and 1024 MB (1.00 GB) added to your account.').waitFor();
    await screenshots(user, 'settings-batch');
    await user.getByRole('link', { name: 'Top Up', exact: true }).click();
    await expect.poll(() => balance(user)).not.toBe('21.50 GB');
  });
});

describe('sessions', () => {
  it('an expired admin session sends the panel back to the admin login; logout clears the flag', async () => {
    await adminContext.clearCookies();
    await admin.reload();
    await admin.getByRole('heading', { name: 'Admin Login' }).waitFor();
    expect(await admin.evaluate(() => sessionStorage.getItem('adminLoggedIn'))).toBeNull();
    await admin.getByLabel('Username').fill(ADMIN.username);
    await admin.getByLabel('Password').fill(ADMIN.password);
    await admin.getByRole('button', { name: 'Sign In' }).click();
    await admin.getByRole('heading', { name: 'Admin Panel' }).waitFor();
    // The generated codes were cleared with the session.
    expect(await admin.getByText('No codes generated yet.').isVisible()).toBe(true);
    await admin.getByRole('button', { name: 'Logout' }).click();
    await admin.getByRole('heading', { name: 'Admin Login' }).waitFor();
    expect(await admin.evaluate(() => sessionStorage.getItem('adminLoggedIn'))).toBeNull();
  });

  it('user logout', async () => {
    await user.getByRole('button', { name: 'Logout' }).click();
    await user.waitForURL((u) => u.pathname === '/');
    await user.goto('/topup');
    await user.waitForURL('**/login');
  });
});
