/**
 * The first hour in Chromium: a first visit is greeted as one and "Welcome back" comes later; the
 * Settings sections rename, change the password (another browser is signed out) and delete the
 * account (back to the login page); a failed logout says so; the Google button only when configured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { logIn, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

const NEW_PASSWORD = 'Changed456';

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
});
afterAll(async () => {
  await e2e?.close();
});

const subtitle = (page: Page) => page.locator('.auth-subtitle').innerText();
const dashboardGreeting = async (page: Page) => {
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  return page.locator('main').innerText();
};
async function openSettings(page: Page, section: 'Security' | 'Account') {
  await page.getByRole('link', { name: 'Settings', exact: true }).click();
  await page.getByRole('heading', { name: 'Settings' }).waitFor();
  await page.getByRole('tab', { name: section }).click();
}

describe('account basics in the browser', () => {
  it('first visit, Settings (name, password), failed and real logout, Welcome back, then deleting the account', async () => {
    const page = await e2e.newPage();
    // A browser that never signed in: no "Welcome back", and no Google button (not configured).
    await page.goto('/login');
    expect(await subtitle(page)).toBe('Sign in to your account.');
    expect(await page.getByRole('button', { name: 'Continue with Google' }).count()).toBe(0);

    const { email, password } = await signUpAndLogIn(e2e, page, 'First Timer');
    const first = await dashboardGreeting(page);
    expect(first).toContain('Welcome to ProxyHub, First Timer!');
    expect(first).not.toContain('Welcome back');

    // A second browser, signed in too: the password change must sign it out.
    const other = await e2e.newPage();
    await logIn(other, email, password);

    await openSettings(page, 'Account');
    // Name: the registration rules, then the new name everywhere.
    const profile = page.getByRole('form', { name: 'Profile' });
    await profile.getByLabel('Full Name').fill('A');
    await profile.getByRole('button', { name: 'Save Name' }).click();
    expect(await profile.locator('.field-error').innerText()).toBe('Name must be at least 2 characters');
    await profile.getByLabel('Full Name').fill('Renamed Person');
    await profile.getByRole('button', { name: 'Save Name' }).click();
    await page.getByText('Name saved.').waitFor();
    expect(await page.getByTestId('user-name').innerText()).toBe('Renamed Person');

    // Password: form checks, a wrong current password, then success.
    await page.getByRole('tab', { name: 'Security' }).click();
    const pw = page.getByRole('form', { name: 'Change password' });
    await pw.getByLabel('Current password').fill(password);
    await pw.getByLabel('New password', { exact: true }).fill('weak');
    await pw.getByLabel('Confirm new password').fill('other');
    await pw.getByRole('button', { name: 'Change Password' }).click();
    expect(await pw.locator('.field-error').allInnerTexts()).toEqual(['Password must be at least 8 characters', 'Passwords do not match']);
    await pw.getByLabel('Current password').fill('Wrong-Password-1');
    await pw.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await pw.getByLabel('Confirm new password').fill(NEW_PASSWORD);
    await pw.getByRole('button', { name: 'Change Password' }).click();
    await page.getByText('Current password is incorrect').waitFor();
    await pw.getByLabel('Current password').fill(password);
    await pw.getByRole('button', { name: 'Change Password' }).click();
    await page.getByText('Password changed. Your other sessions were signed out.').waitFor();
    await screenshots(page, 'settings-account');
    // This browser stays; the other one is out.
    await page.reload();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await other.goto('/dashboard');
    await other.waitForURL('**/login');

    // A logout the server does not confirm is shown, and the user stays signed in.
    await page.route('**/trpc/auth.logout**', (route) => route.abort('connectionfailed'));
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.getByText('Logout failed').waitFor();
    expect(new URL(page.url()).pathname).toBe('/api');
    await screenshots(page, 'logout-failed');
    await page.unroute('**/trpc/auth.logout**');
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL((u) => u.pathname === '/');

    // Back again: the sign-in page and the dashboard say "Welcome back".
    await page.goto('/login');
    expect(await subtitle(page)).toBe('Welcome back. Sign in to your account.');
    await logIn(page, email, NEW_PASSWORD);
    expect(await dashboardGreeting(page)).toContain('Welcome back, Renamed Person');

    // Delete: a confirmation asking for the password; a wrong one changes nothing.
    await openSettings(page, 'Account');
    await page.getByRole('button', { name: 'Delete Account' }).click();
    const confirm = page.getByRole('form', { name: 'Confirm deleting the account' });
    await confirm.getByLabel('Password').fill('Wrong-Password-1');
    await confirm.getByRole('button', { name: 'Yes, delete my account' }).click();
    await confirm.getByText('Password is incorrect').waitFor();
    await screenshots(page, 'delete-account-confirm');
    await confirm.getByLabel('Password').fill(NEW_PASSWORD);
    await confirm.getByRole('button', { name: 'Yes, delete my account' }).click();
    await page.waitForURL((u) => u.pathname === '/login');
    await page.getByText('Your account was deleted.').waitFor();
    expect(await subtitle(page)).toBe('Sign in to your account.');

    // The account is gone: signing in answers as for an unknown email.
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.getByText('Invalid email or password').waitFor();
  });
});

describe('with Google sign-in configured', () => {
  let google: E2E;
  beforeAll(async () => {
    google = await startE2E({ google: { clientId: 'test-client', clientSecret: 'test-secret' } });
  });
  afterAll(async () => {
    await google?.close();
  });

  it('the login page shows the Continue with Google button', async () => {
    const page = await google.newPage();
    await page.goto('/login');
    await page.getByRole('button', { name: 'Continue with Google' }).waitFor();
  });
});
