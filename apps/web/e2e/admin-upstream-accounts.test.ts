/**
 * Provider accounts in the admin panel, in Chromium: an upstream's account saved through its form
 * (a bad URL refused with the server's words), its balance, status and last check in the Upstreams
 * table after the balance watch reads a fake provider, and the Alerts tab with its open count once
 * the balance runs low.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { checkUpstreamBalances } from '@proxyhub/api';
import { startFakeProvider, type FakeProvider } from '@proxyhub/testing';
import { adminLogIn, screenshots, startE2E, type E2E } from './harness';

const GB = 1073741824n;
let e2e: E2E;
let admin: Page;
let provider: FakeProvider;

beforeAll(async () => {
  e2e = await startE2E();
  provider = await startFakeProvider('custom', { balanceBytes: 10n * GB });
  admin = await e2e.newPage();
  admin.on('dialog', (d) => void d.accept());
  await adminLogIn(admin);
});
afterAll(async () => {
  await provider?.close();
  await e2e?.close();
});

const check = () => checkUpstreamBalances(e2e.server.database.db, e2e.server.deps.secrets, { allowPrivate: true });

describe('provider accounts', () => {
  it('an account saved through its form, its balance, status and last check in the table, and the Alerts tab counting a low balance', async () => {
    await e2e.internal.admin.createUpstream.mutate({
      name: 'Watched pool',
      protocol: 'http',
      host: 'pool.example.net',
      port: 8000,
      usernameTemplate: 'user-{country}',
      password: 'pw',
    });
    await admin.getByRole('tab', { name: 'Upstreams', exact: true }).click();
    const row = admin.locator('[data-upstream="Watched pool"]');
    await expect.poll(() => row.innerText()).toContain('None');

    await row.getByRole('button', { name: 'Account' }).click();
    const form = admin.getByTestId('upstream-account-form');
    expect(await form.getByLabel('Provider').locator('option').allInnerTexts()).toEqual([
      'Custom (our contract)',
      'Oxylabs',
      'Bright Data',
      'Decodo',
      'IPRoyal',
      'SOAX',
    ]);
    await form.getByLabel('API key').fill(provider.key);
    await form.getByLabel('Balance URL').fill('ftp://provider.example/balance');
    await form.getByLabel('Usage URL').fill(`${provider.url}/usage`);
    await form.getByLabel('Low balance threshold (GB)').fill('5');
    await form.getByRole('button', { name: 'Save account' }).click();
    await expect.poll(() => form.innerText()).toContain('Balance URL must be an https:// address');

    await form.getByLabel('Balance URL').fill(`${provider.url}/balance`);
    await form.getByRole('button', { name: 'Save account' }).click();
    await form.waitFor({ state: 'detached' });
    await expect.poll(() => row.locator('[data-account-status]').innerText()).toBe('Not checked yet');

    await check();
    await admin.reload();
    await admin.getByRole('tab', { name: 'Upstreams', exact: true }).click();
    await expect.poll(() => row.locator('[data-account-status]').innerText()).toBe('OK');
    expect(await row.innerText()).toContain('10.00 GB');
    expect(await admin.getByRole('tab', { name: 'Alerts (0)' }).count()).toBe(1);
    await screenshots(admin, 'admin-upstream-accounts');

    // Below the threshold: low, one alert, counted on the tab.
    provider.balanceBytes = 3n * GB;
    await check();
    await admin.reload();
    await admin.getByRole('tab', { name: 'Alerts (1)' }).click();
    const alerts = admin.getByTestId('alerts-table');
    await expect.poll(() => alerts.innerText()).toContain('Upstream Watched pool is low: 3.00 GB left (threshold 5.00 GB).');
    expect(await alerts.innerText()).toContain('Open');
    await screenshots(admin, 'admin-alerts');

    await admin.getByRole('tab', { name: 'Upstreams', exact: true }).click();
    await expect.poll(() => row.locator('[data-account-status]').innerText()).toBe('Low');
    expect(await row.innerText()).toContain('3.00 GB');
  });
});
