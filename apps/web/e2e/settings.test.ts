import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let page: Page;

beforeAll(async () => {
  e2e = await startE2E();
  page = await e2e.newPage();
  await signUpAndLogIn(e2e, page, 'Settings Tester');
});
afterAll(async () => {
  await e2e?.close();
});

/** What the server says about the signed-in user (through the page's own cookie). */
const sessionUser = () => page.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: { apiKey: string; proxyPassword: string } }).user);
const statusWithKey = (key: string) =>
  page.evaluate(async (k) => (await fetch('/auth/user', { headers: { authorization: `Bearer ${k}` }, credentials: 'omit' })).status, key);

describe('settings: rotating leaked credentials', () => {
  it('each credential is replaced only after confirmation, and the new value is shown', async () => {
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    // Secrets are masked until Reveal; the API reference is one link away.
    expect(await page.getByTestId('api-key').getAttribute('type')).toBe('password');
    await page.getByRole('button', { name: 'Reveal API key' }).click();
    expect(await page.getByTestId('api-key').getAttribute('type')).toBe('text');
    await page.getByRole('button', { name: 'Hide API key' }).click();
    expect(await page.getByTestId('proxy-password').getAttribute('type')).toBe('password');
    expect(await page.getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe('/docs');
    const oldKey = await page.getByTestId('api-key').inputValue();
    const oldPassword = await page.getByTestId('proxy-password').inputValue();

    // Cancel changes nothing.
    await page.getByRole('button', { name: 'Rotate API Key' }).click();
    const confirmKey = page.getByRole('group', { name: 'Confirm replacing your API key' });
    expect(await confirmKey.innerText()).toContain('Replace your API key? Your current API key stops working at once');
    await screenshots(page, 'settings-rotate-confirm');
    await confirmKey.getByRole('button', { name: 'Cancel' }).click();
    expect((await sessionUser()).apiKey).toBe(oldKey);

    await page.getByRole('button', { name: 'Rotate API Key' }).click();
    await confirmKey.getByRole('button', { name: 'Yes, rotate API Key' }).click();
    await page.getByText('New API key created. The old key no longer works.').waitFor();
    const newKey = await page.getByTestId('api-key').inputValue();
    expect(newKey).not.toBe(oldKey);
    expect((await sessionUser()).apiKey).toBe(newKey);
    expect(await statusWithKey(oldKey)).toBe(401);
    expect(await statusWithKey(newKey)).toBe(200);

    await page.getByRole('button', { name: 'Rotate Proxy Password' }).click();
    const confirmPassword = page.getByRole('group', { name: 'Confirm replacing your proxy password' });
    expect(await confirmPassword.innerText()).toContain('within 10 seconds');
    await confirmPassword.getByRole('button', { name: 'Yes, rotate Proxy Password' }).click();
    await page.getByText('New proxy password created.').waitFor();
    const newPassword = await page.getByTestId('proxy-password').inputValue();
    expect(newPassword).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(newPassword).not.toBe(oldPassword);
    expect((await sessionUser()).proxyPassword).toBe(newPassword);
    await screenshots(page, 'settings-rotated');
  });
});
