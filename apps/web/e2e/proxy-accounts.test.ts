import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { addCredits } from '@proxyhub/testing';
import { screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let page: Page;

beforeAll(async () => {
  e2e = await startE2E();
  page = await e2e.newPage();
  page.on('dialog', (d) => void d.accept());
  await signUpAndLogIn(e2e, page, 'Reseller Rita');
});
afterAll(async () => {
  await e2e?.close();
});

type Account = { proxyUserId: string; proxyPassword: string; name: string; kind: string };
const accounts = () => page.evaluate(async () => ((await (await fetch('/api/proxy-accounts')).json()) as { accounts: Account[] }).accounts);

describe('proxy accounts page', () => {
  it('creates a capped sub-account, shows its usage against the cap, rotates and disables it; the generator uses it', async () => {
    await page.getByRole('link', { name: 'Proxy accounts', exact: true }).click();
    await page.waitForURL('**/proxy-accounts');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Name is required').waitFor();
    await page.getByLabel('Account name').fill('Scraper EU');
    await page.getByLabel('Cap (GB)').fill('0.005');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Cap has at most two decimals').waitFor();
    await page.getByLabel('Cap (GB)').fill('1');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(async () => (await accounts()).length).toBe(2);
    const sub = (await accounts()).find((a) => a.kind === 'sub')!;
    const row = page.getByTestId(`account-${sub.proxyUserId}`);
    await row.waitFor();
    expect(await row.getByTestId('account-usage').innerText()).toBe('0 bytes used of 1.00 GB cap');

    // Traffic on the sub-account (what a gateway reports) moves its bar.
    const me = await page.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: { id: string } }).user);
    await addCredits(e2e.server, me.id, 2n * 1024n ** 3n);
    const gw = e2e.internal.gateway;
    const { account } = await gw.authorize.mutate({ proxyUserId: sub.proxyUserId, password: sub.proxyPassword });
    if (!account.ok) throw new Error(account.message);
    const lease = await gw.reserveLease.mutate({ gatewayId: 'e2e-accounts', proxyAccountId: account.proxyAccountId, bytes: 256 * 1024 * 1024 });
    await gw.report.mutate({
      gatewayId: 'e2e-accounts',
      seq: 1,
      items: [{ leaseId: lease.leaseId!, bytesUp: 0, bytesDown: 256 * 1024 * 1024, sessions: 1, release: true }],
    });
    await page.reload();
    await expect.poll(() => row.getByTestId('account-usage').innerText()).toBe('256.00 MB used of 1.00 GB cap');
    expect(await row.getByRole('meter').getAttribute('aria-valuenow')).toBe('25');

    // Rotate: confirmed, the new password shows at once, before the list is read again (held back
    // here: the notice once showed the list's old password until its refetch landed).
    await page.route('**/trpc/*proxyAccounts.list*', async (route) => {
      await new Promise((r) => setTimeout(r, 2000));
      await route.continue().catch(() => undefined);
    });
    await row.getByRole('button', { name: 'New password' }).click();
    const notice = row.getByText(/^New password: /);
    await notice.waitFor();
    const shown = await notice.innerText();
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    const rotated = (await accounts()).find((a) => a.proxyUserId === sub.proxyUserId)!;
    expect(rotated.proxyPassword).not.toBe(sub.proxyPassword);
    expect(shown).toContain(`New password: ${rotated.proxyPassword}.`);
    await expect.poll(() => row.innerText()).toContain(rotated.proxyPassword);

    // The generator makes lists for it.
    await page.getByRole('link', { name: 'Proxies', exact: true }).click();
    await page.getByLabel('Proxy account', { exact: true }).selectOption(sub.proxyUserId);
    await page.getByLabel('Number of Proxies').fill('3');
    await page.getByRole('button', { name: 'Generate Proxies' }).click();
    const rows = page.getByTestId('proxy-output').getByRole('listitem');
    await expect.poll(() => rows.count()).toBe(3);
    for (const line of await rows.allInnerTexts()) {
      expect(line).toContain(`${sub.proxyUserId}_`);
      expect(line).toContain(rotated.proxyPassword);
    }

    // Disable: badge shows, and it leaves the generator's choices.
    await page.getByRole('link', { name: 'Proxy accounts', exact: true }).click();
    await row.getByRole('button', { name: 'Disable' }).click();
    await row.getByText('Disabled', { exact: true }).waitFor();
    await screenshots(page, 'proxy-accounts');
  });
});
