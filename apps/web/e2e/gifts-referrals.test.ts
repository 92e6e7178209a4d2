import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { creditDueReferrals, SANDBOX_SIGNATURE_HEADER, signSandboxNotification } from '@proxyhub/api';
import { gbToBytes } from '@proxyhub/core';
import { addCredits, signedInUser } from '@proxyhub/testing';
import { fieldErrors, logIn, screenshots, signUpAndLogIn, startE2E, STRONG_PASSWORD, uniqueEmail, VIEWPORTS, type E2E } from './harness';

let e2e: E2E;
let giver: Page;
let giverId: string;

/** The signed-in user of a page, as the server answers it. */
const sessionUser = (page: Page) => page.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: { id: string; credits: number } }).user);

beforeAll(async () => {
  e2e = await startE2E();
  giver = await e2e.newPage();
  await signUpAndLogIn(e2e, giver, 'Gift Giver');
  giverId = (await sessionUser(giver)).id;
  await addCredits(e2e.server, giverId, gbToBytes(2));
});
afterAll(async () => {
  await e2e?.close();
});

async function openSettings(page: Page) {
  // Gift codes and referrals are in the Account section.
  await page.goto('/api?section=account');
  await page.getByRole('heading', { name: 'Settings' }).waitFor();
}

describe('gift codes card', () => {
  it('makes a gift from the balance, refuses too much, lists it, and cancelling gives the data back', async () => {
    await openSettings(giver);
    const card = giver.locator('section.card').filter({ has: giver.getByRole('heading', { name: 'Gift Codes' }) });
    const amount = card.getByLabel('Gift amount (GB)');
    const make = card.getByRole('button', { name: 'Make Gift Code' });

    await amount.fill('0.05');
    await make.click();
    await expect.poll(() => fieldErrors(giver)).toEqual(['Credits must be at least 0.1 GB']);
    await amount.fill('5');
    await make.click();
    await expect.poll(() => fieldErrors(giver)).toEqual(['Not enough data for this gift']);
    expect((await sessionUser(giver)).credits).toBe(Number(gbToBytes(2)));

    await amount.fill('1.5');
    await make.click();
    const code = await card.getByTestId('gift-made-code').innerText();
    expect(code).toMatch(/^[A-HJKMNP-Z2-9]{16}$/);
    expect((await sessionUser(giver)).credits).toBe(Number(gbToBytes(0.5)));
    const rows = card.getByTestId('gift-row');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().innerText()).toMatch(new RegExp(`${code}\\s+1\\.50[\\s\\S]*Not redeemed`));
    await screenshots(giver, 'settings-gift-made');

    // Someone else redeems it on their Top Up page.
    const friend = await e2e.newPage();
    await signUpAndLogIn(e2e, friend, 'Gift Friend');
    await friend.goto('/topup');
    await friend.getByLabel('Top-up Code').fill(code);
    await friend.getByRole('button', { name: 'Redeem Code' }).click();
    await expect.poll(async () => (await sessionUser(friend)).credits).toBe(Number(gbToBytes(1.5)));
    await openSettings(giver);
    await expect.poll(async () => card.getByTestId('gift-row').first().innerText()).toMatch(/Redeemed/);
    expect(await card.getByTestId('gift-row').first().getByRole('button', { name: 'Cancel' }).count()).toBe(0);

    // A second gift, cancelled: the data comes back.
    await amount.fill('0.5');
    await make.click();
    const second = await card.getByTestId('gift-made-code').innerText();
    expect((await sessionUser(giver)).credits).toBe(0);
    await card.getByTestId('gift-row').filter({ hasText: second }).getByRole('button', { name: 'Cancel' }).click();
    await card.getByText(`Gift code ${second} cancelled: its data is back in your balance.`).waitFor();
    expect((await sessionUser(giver)).credits).toBe(Number(gbToBytes(0.5)));
    await expect.poll(async () => card.getByTestId('gift-row').filter({ hasText: second }).innerText()).toMatch(/Cancelled/);
    await screenshots(giver, 'settings-gift-cancelled');
  });
});

describe('referrals card', () => {
  it('shows the link; a sign-up through it is counted, its paid order pending, then earned', async () => {
    await openSettings(giver);
    const card = giver.locator('section.card').filter({ has: giver.getByRole('heading', { name: 'Referrals' }) });
    const link = await card.getByTestId('referral-link').inputValue();
    expect(link).toMatch(new RegExp(`^${e2e.baseUrl}/login\\?ref=[0-9A-F]{16}$`));
    expect(await card.getByTestId('referral-referred').innerText()).toBe('0');

    // The friend follows the link: the registration opens with the code.
    const friend = await (await e2e.newContext()).newPage();
    await friend.goto(link);
    await friend.getByRole('heading', { name: 'Create Account' }).waitFor();
    expect(await friend.getByTestId('referral-notice').innerText()).toContain(link.split('ref=')[1]!);
    const email = uniqueEmail('referred');
    await friend.getByLabel('Full Name').fill('Referred Friend');
    await friend.getByLabel('Email').fill(email);
    await friend.getByLabel('Password').fill(STRONG_PASSWORD);
    await friend.getByRole('button', { name: 'Create Account' }).click();
    await friend.getByRole('heading', { name: 'Check Your Email' }).waitFor();
    await friend.goto(await e2e.mailLink(email, '/verify-email'));
    await friend.getByRole('heading', { name: 'Email Verified!' }).waitFor();
    await friend.goto('/login');
    await friend.getByLabel('Email').fill(email);
    await friend.getByLabel('Password').fill(STRONG_PASSWORD);
    await friend.getByRole('button', { name: 'Sign In', exact: true }).click();
    await friend.waitForURL('**/dashboard');

    // The friend pays 12 GB with the sandbox provider.
    await friend.goto('/topup');
    await friend.getByLabel('Amount (GB)').fill('12');
    await friend.getByRole('button', { name: /^Pay \$/ }).click();
    await friend.waitForURL('**/sandbox/pay/**');
    await friend.getByTestId('sandbox-pay').click();
    await friend.waitForURL((u) => u.pathname === '/topup' && u.searchParams.get('payment') === 'finished');

    await openSettings(giver);
    await expect.poll(() => card.getByTestId('referral-referred').innerText()).toBe('1');
    expect(await card.getByTestId('referral-pending').innerText()).toBe('1.20 GB');
    expect(await card.getByTestId('referral-earned').innerText()).toBe('0.00 GB');
    expect(await card.getByTestId('referral-row').innerText()).toMatch(/r\*\*\*@example\.com\s+12 GB\s+1\.20 GB\s+Pending until/);
    await screenshots(giver, 'settings-referral-pending');

    // Fifteen days later the job credits it.
    expect((await creditDueReferrals(e2e.server.deps.db, new Date(Date.now() + 15 * 86_400_000))).credited).toBe(1);
    e2e.server.deps.cache.invalidate();
    await openSettings(giver);
    await expect.poll(() => card.getByTestId('referral-earned').innerText()).toBe('1.20 GB');
    expect(await card.getByTestId('referral-pending').innerText()).toBe('0.00 GB');
    expect(await card.getByTestId('referral-row').innerText()).toMatch(/Credited/);
    await giver.goto('/billing');
    await giver.getByTestId('billing-row').filter({ hasText: 'Referral reward' }).waitFor();
  });

  it('both cards fit a phone screen: nothing scrolls sideways', async () => {
    await giver.setViewportSize(VIEWPORTS.phone);
    await openSettings(giver);
    await giver.getByTestId('referral-row').waitFor();
    await giver.getByTestId('gift-row').first().waitFor();
    expect(await giver.evaluate(() => document.documentElement.scrollWidth)).toBe(VIEWPORTS.phone.width);
    await giver.setViewportSize(VIEWPORTS.desktop);
  });

  it("an order paid from the referrer's own payer id is shown as not eligible, with the reason", async () => {
    const referrer = await signedInUser(e2e.server, 'Referrer');
    const code = (await referrer.client.get<{ user: { referralCode: string } }>('/auth/user')).body.user.referralCode;
    const twin = await signedInUser(e2e.server, 'Twin', { referralCode: code });
    // Both pay through the sandbox with one payer id, as one person's two accounts would.
    for (const u of [referrer, twin]) {
      const r = await u.client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 });
      const body = {
        order_id: r.body.invoiceUrl.split('/').at(-1)!,
        payment_id: `p-${u.user.id}`,
        payment_status: 'finished',
        price_amount: 10.8,
        price_currency: 'usd',
        payer_id: 'payer-one-person',
      } as const;
      const paid = await e2e.server
        .client({ origin: null })
        .post('/webhooks/sandbox', body, { [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(e2e.server.config.appSecret, body) });
      expect(paid.status).toBe(200);
    }
    const page = await e2e.newPage();
    await logIn(page, referrer.email, STRONG_PASSWORD);
    await openSettings(page);
    const card = page.locator('section.card').filter({ has: page.getByRole('heading', { name: 'Referrals' }) });
    await expect.poll(() => card.getByTestId('referral-referred').innerText()).toBe('1');
    expect(await card.getByTestId('referral-pending').innerText()).toBe('0.00 GB');
    expect(await card.getByTestId('referral-row').innerText()).toMatch(/12 GB\s+0\.00 GB\s+Not eligible: Paid with the same payment account as you/);
    await screenshots(page, 'settings-referral-not-eligible');
  });
});
