import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { INVALID_RESET_LINK, INVALID_VERIFY_LINK, RESET_REDIRECT_MS } from '@proxyhub/core';
import { STRONG_PASSWORD, fieldErrors, logIn, screenshots, signUpAndLogIn, startE2E, uniqueEmail, type E2E } from './harness';

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
});
afterAll(async () => {
  await e2e?.close();
});

const path = (page: Page) => new URL(page.url()).pathname;

describe('public screens', () => {
  it('landing shows the product, price and features; Get Started opens Create Account', async () => {
    const page = await e2e.newPage();
    await page.goto('/');
    await page.getByRole('heading', { name: 'ProxyHub', level: 1 }).waitFor();
    const text = await page.locator('body').innerText();
    expect(text).toContain('$0.90');
    expect(text).toContain('10+');
    expect(text).toContain('99.9%');
    for (const f of ['Instant Generation', 'Global Network', 'Simple Pricing']) expect(text).toContain(f);
    await screenshots(page, 'landing');
    await page.getByRole('link', { name: 'Get Started' }).click();
    await page.waitForURL('**/login?mode=register');
    await page.getByRole('heading', { name: 'Create Account' }).waitFor();
  });

  it('unknown paths and protected routes redirect', async () => {
    const page = await e2e.newPage();
    await page.goto('/no/such/page');
    await page.waitForURL((u) => u.pathname === '/');
    for (const p of ['/dashboard', '/proxies', '/api', '/topup']) {
      await page.goto(p);
      await page.waitForURL('**/login');
      expect(path(page)).toBe('/login');
    }
  });

  it('sign-in validation: spec messages, cleared on edit; server error shown', async () => {
    const page = await e2e.newPage();
    await page.goto('/login');
    await page.getByRole('heading', { name: 'Sign In' }).waitFor();
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await expect.poll(() => fieldErrors(page)).toEqual(['Email is required', 'Password is required']);
    await page.getByLabel('Email').fill('not-an-email');
    await expect.poll(() => fieldErrors(page)).toEqual(['Password is required']);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await expect.poll(() => fieldErrors(page)).toEqual(['Please enter a valid email address', 'Password is required']);
    await screenshots(page, 'login-errors');
    await page.getByLabel('Email').fill('nobody@example.com');
    await page.getByLabel('Password').fill('whatever');
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').first().innerText()).toContain('Invalid email or password');
    expect(await page.getByRole('link', { name: 'Forgot password?' }).isVisible()).toBe(true);
  });

  it('create-account validation; switching modes clears fields and errors', async () => {
    const page = await e2e.newPage();
    await page.goto('/login');
    await page.getByRole('button', { name: 'Create Account' }).click();
    await page.getByRole('heading', { name: 'Create Account' }).waitFor();
    expect(await page.getByRole('link', { name: 'Forgot password?' }).count()).toBe(0);
    const submit = page.getByRole('button', { name: 'Create Account' });
    await submit.click();
    await expect.poll(() => fieldErrors(page)).toEqual(['Name is required', 'Email is required', 'Password is required']);
    await page.getByLabel('Full Name').fill('A');
    await page.getByLabel('Email').fill('a@b.co');
    await page.getByLabel('Password').fill('Ab1');
    await submit.click();
    await expect.poll(() => fieldErrors(page)).toEqual(['Name must be at least 2 characters', 'Password must be at least 8 characters']);
    await page.getByLabel('Password').fill('alllowercase1');
    await submit.click();
    await expect
      .poll(() => fieldErrors(page))
      .toEqual(['Name must be at least 2 characters', 'Password must contain at least one lowercase letter, one uppercase letter, and one number']);
    await screenshots(page, 'register-errors');
    // A name with a link or a control character: the screen words it as the API's 400 does.
    await page.getByLabel('Password').fill(STRONG_PASSWORD);
    for (const [name, error] of [
      ['Claim at evil.example', 'Name must not contain a link or web address'],
      ['Grace \u202Eroppoh', 'Name must not contain control characters'],
    ]) {
      await page.getByLabel('Full Name').fill(name!);
      await submit.click();
      await expect.poll(() => fieldErrors(page)).toEqual([error]);
    }
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('heading', { name: 'Sign In' }).waitFor();
    await expect.poll(() => fieldErrors(page)).toEqual([]);
    expect(await page.getByLabel('Email').inputValue()).toBe('');
  });

  it('the login page shows ?error=; without Google configured there is no Google button, and /auth/google comes back with its message', async () => {
    const page = await e2e.newPage();
    await page.goto('/login?error=Something%20went%20wrong');
    expect(await page.getByRole('alert').innerText()).toContain('Something went wrong');
    expect(await page.getByRole('button', { name: 'Continue with Google' }).count()).toBe(0);
    await page.goto('/auth/google');
    await page.waitForURL((u) => u.pathname === '/login' && u.searchParams.has('error'));
    expect(await page.getByRole('alert').innerText()).toContain('Google sign-in is not available');
  });

  it('verify-email without a token, and with a bad one', async () => {
    const page = await e2e.newPage();
    await page.goto('/verify-email');
    await page.getByRole('heading', { name: 'Verification Failed' }).waitFor();
    expect(await page.locator('body').innerText()).toContain(INVALID_VERIFY_LINK);
    await screenshots(page, 'verify-email-error');
    await page.goto('/verify-email?token=bogus-token');
    await page.getByRole('heading', { name: 'Verification Failed' }).waitFor();
    expect(await page.locator('.auth-subtitle').innerText()).toMatch(/link/i);
    expect(await page.getByRole('link', { name: 'Sign In' }).getAttribute('href')).toBe('/login');
    expect(await page.getByRole('link', { name: 'Go Home' }).getAttribute('href')).toBe('/');
  });

  it('protected routes show Loading while the session is checked, and the fallback when the check fails', async () => {
    const page = await e2e.newPage();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/trpc/auth.me**', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto('/dashboard');
    await page.getByRole('status').filter({ hasText: 'Loading...' }).waitFor();
    release();
    await page.waitForURL('**/login');
    await page.unroute('**/trpc/auth.me**');

    await page.route('**/trpc/auth.me**', (route) => route.fulfill({ status: 502, contentType: 'text/plain', body: 'Bad gateway' }));
    await page.goto('/proxies');
    await page.getByRole('alert').filter({ hasText: 'Failed to get user info' }).waitFor();
    await page.getByRole('button', { name: 'Try again' }).waitFor();
  });

  it('a network failure on sign-in shows the screen fallback', async () => {
    const page = await e2e.newPage();
    await page.goto('/login');
    await page.route('**/trpc/auth.login**', (route) => route.abort('connectionrefused'));
    await page.getByLabel('Email').fill('someone@example.com');
    await page.getByLabel('Password').fill('whatever');
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'An unexpected error occurred. Please try again.' }).waitFor();
  });

  it('reset-password without a token shows the invalid-link screen', async () => {
    const page = await e2e.newPage();
    await page.goto('/reset-password');
    await page.getByRole('heading', { name: 'Invalid Reset Link' }).waitFor();
    expect(await page.locator('body').innerText()).toContain(INVALID_RESET_LINK);
    await screenshots(page, 'reset-password-invalid');
    await page.getByRole('link', { name: 'Request a new reset link' }).click();
    await page.waitForURL('**/forgot-password');
  });
});

describe('account flows', () => {
  it('register, check your email (resend, back), verify from the outbox, log in, dashboard, logout', async () => {
    const page = await e2e.newPage();
    const email = uniqueEmail('web');
    await page.goto('/login');
    await page.getByRole('button', { name: 'Create Account' }).click();
    await page.getByLabel('Full Name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: 'Create Account' }).click();
    await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();
    expect(await page.locator('body').innerText()).toContain(email);
    await screenshots(page, 'check-your-email');
    await page.getByRole('button', { name: 'Resend verification email' }).click();
    await page.getByText('a new link has been sent').waitFor();
    await page.getByRole('button', { name: 'Back to login' }).click();
    await page.getByRole('heading', { name: 'Sign In' }).waitFor();

    // Not verified yet: signing in leads to the check-your-email screen.
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();
    expect(await page.locator('body').innerText()).toContain('Please verify your email');

    const link = await e2e.mailLink(email, '/verify-email');
    await page.goto(link);
    await page.getByRole('heading', { name: 'Email Verified!' }).waitFor();
    await screenshots(page, 'verify-email-success');
    await page.goto(link);
    await page.getByRole('heading', { name: 'Already Verified' }).waitFor();
    await page.getByRole('link', { name: 'Sign In' }).click();
    await page.waitForURL('**/login');

    await logIn(page, email, STRONG_PASSWORD);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(await page.getByTestId('user-name').innerText()).toBe('Ada Lovelace');
    expect(await page.getByTestId('remaining-data').innerText()).toBe('0.00 GB');
    expect(await page.getByTestId('total-usage').innerText()).toBe('0.00 GB');
    expect(await page.getByTestId('proxy-user-id').innerText()).toMatch(/^[a-z0-9]{6,24}$/);
    const body = await page.locator('main').innerText();
    expect(body).toContain(email);
    for (const label of ['Remaining Data', 'Total Usage', 'Proxy User ID', 'Account Information']) expect(body.toUpperCase()).toContain(label.toUpperCase());
    const nav = await page.getByRole('complementary', { name: 'Main' }).innerText();
    for (const label of ['Dashboard', 'Proxies', 'Settings', 'Top Up', 'Logout']) expect(nav).toContain(label);
    await screenshots(page, 'dashboard');

    // Signed in: the public entry points send to the dashboard, the session survives a reload.
    await page.goto('/login');
    await page.waitForURL('**/dashboard');
    await page.goto('/');
    await page.waitForURL('**/dashboard');

    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL((u) => u.pathname === '/');
    await page.getByRole('link', { name: 'Get Started' }).waitFor();
    await page.goto('/dashboard');
    await page.waitForURL('**/login');
  });

  it('forgot password (validation, sent), reset (validation, success, redirect after 3 s), log in with the new password', async () => {
    const page = await e2e.newPage();
    const { email } = await signUpAndLogIn(e2e, page, 'Reset Tester');
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL((u) => u.pathname === '/');

    await page.goto('/login');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.waitForURL('**/forgot-password');
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await expect.poll(() => fieldErrors(page)).toEqual(['Email is required']);
    await page.getByLabel('Email').fill('bad');
    await expect.poll(() => fieldErrors(page)).toEqual([]);
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await expect.poll(() => fieldErrors(page)).toEqual(['Please enter a valid email address']);
    await screenshots(page, 'forgot-password');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();
    expect(await page.locator('body').innerText()).toContain('expires in 1 hour');
    await screenshots(page, 'forgot-password-sent');

    await page.goto(await e2e.mailLink(email, '/reset-password'));
    await page.getByRole('heading', { name: 'Reset Password' }).waitFor();
    const submit = page.getByRole('button', { name: 'Reset Password' });
    await submit.click();
    await expect.poll(() => fieldErrors(page)).toEqual(['Password is required', 'Please confirm your password']);
    await page.getByLabel('New Password').fill('short');
    await submit.click();
    await expect.poll(() => fieldErrors(page)).toEqual(['Password must be at least 8 characters', 'Please confirm your password']);
    await page.getByLabel('New Password').fill('nouppercase1');
    await page.getByLabel('Confirm Password').fill('nouppercase1');
    await submit.click();
    await expect.poll(() => fieldErrors(page)).toEqual(['Password must contain at least one lowercase letter, one uppercase letter, and one number']);
    await page.getByLabel('New Password').fill('NewSecret456');
    await page.getByLabel('Confirm Password').fill('NewSecret457');
    await submit.click();
    await expect.poll(() => fieldErrors(page)).toEqual(['Passwords do not match']);
    await screenshots(page, 'reset-password-errors');
    await page.getByLabel('Confirm Password').fill('NewSecret456');
    // The 3 s run from the success message, which comes after the click: timed from the click, as
    // the moment the test notices the message can lag on a busy machine.
    const clickedAt = Date.now();
    await submit.click();
    await page.getByRole('heading', { name: 'Password Reset!' }).waitFor();
    await screenshots(page, 'reset-password-success');
    await page.waitForURL('**/login', { timeout: 10_000 });
    expect(Date.now() - clickedAt).toBeGreaterThanOrEqual(RESET_REDIRECT_MS);

    await logIn(page, email, 'NewSecret456');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  });
});
