import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let page: Page;
let account: { email: string; password: string };

beforeAll(async () => {
  e2e = await startE2E();
  page = await e2e.newPage();
  account = await signUpAndLogIn(e2e, page, 'Careful Carol');
});
afterAll(async () => {
  await e2e?.close();
});

const codeAt = (secret: string, offsetMs: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp: Date.now() + offsetMs });

describe('two-factor sign-in', () => {
  it('is set up in Settings with the QR code, then sign-in asks for the code', async () => {
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('tab', { name: 'Security' }).click();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    const secret = (await page.getByTestId('totp-secret').innerText()).trim();
    await page.getByLabel('Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('Invalid code').waitFor();
    await page.getByLabel('Code from the app').fill(codeAt(secret, 0));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codes = (await page.getByTestId('recovery-codes').locator('pre').innerText()).split('\n');
    expect(codes).toHaveLength(10);
    await screenshots(page, 'two-factor-setup');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByTestId('two-factor-on').waitFor();

    // Sign out and back in: the password is not enough.
    await page.getByRole('button', { name: 'Logout' }).click();
    // Logout goes home once the server ended the session; going to /login before that raced it
    // (a busy CI machine: /login saw the session still open and sent the page on to the dashboard).
    await page.waitForURL((u) => u.pathname === '/');
    await page.goto('/login');
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    await page.getByLabel('Authentication code').fill('123456');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('Invalid code').waitFor();
    await page.getByLabel('Authentication code').fill(codeAt(secret, 30_000));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/dashboard');

    // A recovery code works too, once.
    await page.getByRole('button', { name: 'Logout' }).click();
    // Logout goes home once the server ended the session; going to /login before that raced it
    // (a busy CI machine: /login saw the session still open and sent the page on to the dashboard).
    await page.waitForURL((u) => u.pathname === '/');
    await page.goto('/login');
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.getByLabel('Authentication code').fill(codes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/dashboard');
  });
});
