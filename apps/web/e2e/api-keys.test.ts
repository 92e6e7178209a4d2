import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let page: Page;

beforeAll(async () => {
  e2e = await startE2E();
  page = await e2e.newPage();
  await signUpAndLogIn(e2e, page, 'Key Maker');
});
afterAll(async () => {
  await e2e?.close();
});

/** A call made as a program would, with the key alone (no cookie). */
const statusWithKey = (key: string, path: string) =>
  page.evaluate(async ([k, p]) => (await fetch(p, { headers: { authorization: `Bearer ${k}` }, credentials: 'omit' })).status, [key, path] as const);

describe('settings: API keys', () => {
  it('creates a key with one scope, shows its secret once, lists it by prefix and deletes it', async () => {
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    const card = page.getByTestId('api-key-form');
    await card.waitFor();
    const list = page.getByTestId('api-key-list');
    // Today's key is there as "Default".
    await list.getByText('Default', { exact: true }).waitFor();

    // The shared schema's words, before anything is sent.
    await card.getByRole('button', { name: 'Create API key' }).click();
    await card.getByText('Name is required').waitFor();
    await card.getByLabel('Key name').fill('Usage dashboard');
    await card.getByRole('button', { name: 'Create API key' }).click();
    await card.getByText('Choose at least one scope').waitFor();
    await card.getByLabel('Allowed addresses (optional)').fill('10.0.0.300/8');
    await card.getByRole('checkbox', { name: /usage:read/ }).check();
    await card.getByRole('button', { name: 'Create API key' }).click();
    await card.getByText('Invalid CIDR: "10.0.0.300/8"').waitFor();
    await card.getByLabel('Allowed addresses (optional)').fill('');

    await card.getByRole('button', { name: 'Create API key' }).click();
    const secretBox = page.getByTestId('api-key-secret');
    await secretBox.waitFor();
    const secret = await secretBox.innerText();
    expect(secret).toMatch(/^pk_/);
    await list.getByText('Usage dashboard').waitFor();
    await list.getByText(`${secret.slice(0, 8)}…`).waitFor();
    await screenshots(page, 'settings-api-key-created');

    // Shown once: after a reload the page holds only the prefix.
    await page.reload();
    await list.getByText('Usage dashboard').waitFor();
    expect(await page.getByTestId('api-key-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    // The key does what its scope says and nothing else.
    expect(await statusWithKey(secret, '/api/usage')).toBe(200);
    expect(await statusWithKey(secret, '/api/proxy-accounts')).toBe(403);

    page.once('dialog', (d) => void d.accept());
    await list.getByRole('button', { name: 'Delete API key Usage dashboard' }).click();
    await list.getByText('Usage dashboard').waitFor({ state: 'detached' });
    expect(await statusWithKey(secret, '/api/usage')).toBe(401);
  });
});
