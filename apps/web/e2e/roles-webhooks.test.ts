/** Admin roles in the panel (each role sees only its tabs) and the Settings card for webhooks. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN, adminLogIn, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;

beforeAll(async () => {
  e2e = await startE2E();
});
afterAll(async () => {
  await e2e?.close();
});

async function adminSignIn(username: string, password: string): Promise<Page> {
  const page = await e2e.newPage();
  page.on('dialog', (d) => void d.accept());
  await adminLogIn(page, { username, password });
  return page;
}

const tabs = (page: Page) => page.getByRole('tab').allTextContents();

describe('admin roles in the panel', () => {
  it('an owner adds finance and support admins; each sees only the tabs of its role', async () => {
    const owner = await adminSignIn(ADMIN.username, ADMIN.password);
    await owner.getByRole('tab', { name: 'Admins', exact: true }).click();
    for (const role of ['finance', 'support'] as const) {
      await owner.getByLabel('New admin username').fill(`e2e-${role}`);
      await owner.getByLabel('New admin password').fill('Role-Password-1');
      await owner.getByLabel('Role', { exact: true }).selectOption(role);
      await owner.getByRole('button', { name: 'Add admin' }).click();
      await owner.getByLabel(`Role of e2e-${role}`).waitFor();
      expect(await owner.getByLabel(`Role of e2e-${role}`).inputValue()).toBe(role);
    }
    expect(await tabs(owner)).toEqual(expect.arrayContaining(['Generate Codes', 'Codes', 'Payments', 'Admins', 'Audit log', 'Upstreams', 'Gateways']));

    const finance = await adminSignIn('e2e-finance', 'Role-Password-1');
    await finance.getByTestId('admin-overview').waitFor();
    await expect
      .poll(() => tabs(finance))
      .toEqual([
        expect.stringMatching(/^Users/),
        'Abuse',
        'Payments',
        'Promotions',
        'Plans',
        'Pricing',
        'Audit log',
        expect.stringMatching(/^Alerts/),
        'Telegram',
      ]);

    const support = await adminSignIn('e2e-support', 'Role-Password-1');
    await expect.poll(() => tabs(support)).toEqual(['Generate Codes', expect.stringMatching(/^Users/), 'Abuse', 'Codes', 'Audit log', 'Telegram']);
    expect(await support.getByTestId('admin-overview').count()).toBe(0);

    // Promoted, the support admin sees the owner's tabs after a reload.
    await owner.getByLabel('Role of e2e-support').selectOption('owner');
    await expect.poll(async () => (await e2e.internal.admin.admins.query()).admins.find((a) => a.username === 'e2e-support')?.role).toBe('owner');
    await support.reload();
    await expect.poll(() => tabs(support)).toContain('Upstreams');
  });
});

describe('settings: webhooks', () => {
  it('adds a webhook, shows its secret once, lists it with an empty delivery log, deletes it', async () => {
    const page = await e2e.newPage();
    page.on('dialog', (d) => void d.accept());
    await signUpAndLogIn(e2e, page, 'Hook Tester');
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('tab', { name: 'Notifications' }).click();
    await page.getByLabel('Webhook URL').fill('http://example.com/hook');
    await page.getByLabel('Payment credited').check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByText('URL must start with https://').waitFor();

    await page.getByLabel('Webhook URL').fill('http://127.0.0.1:9/hook');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    expect(await page.getByTestId('webhook-secret').textContent()).toMatch(/^whsec_[0-9a-f]{48}$/);
    await page.getByTestId('webhook-list').getByText('http://127.0.0.1:9/hook').waitFor();
    await page.getByRole('button', { name: 'Deliveries' }).click();
    await page.getByText('No deliveries yet.').waitFor();

    await page.getByRole('button', { name: 'Delete webhook http://127.0.0.1:9/hook' }).click();
    await expect.poll(() => page.getByTestId('webhook-list').locator('li').count()).toBe(0);
  });
});
