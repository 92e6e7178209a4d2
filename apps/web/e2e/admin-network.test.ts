/**
 * The admin's network tabs in Chromium: an upstream added through the form, its traffic (reported
 * as a gateway would) with cost, revenue and margin in the list and per day, edited, disabled and
 * deleted; the gateway fleet from heartbeats, up and then down after the silence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

const GiB = 1024 * 1024 * 1024;
let e2e: E2E;
let admin: Page;

beforeAll(async () => {
  // Gateways are down after 60 s of silence by default; 3 s here.
  e2e = await startE2E({ gatewayDownAfterMs: 3000 });
  admin = await e2e.newPage();
  admin.on('dialog', (d) => void d.accept());
  await admin.goto('/admin');
  await admin.getByLabel('Username').fill(ADMIN.username);
  await admin.getByLabel('Password').fill(ADMIN.password);
  await admin.getByRole('button', { name: 'Sign In' }).click();
  await admin.getByRole('heading', { name: 'Admin Panel' }).waitFor();
});
afterAll(async () => {
  await e2e?.close();
});

/** A customer with 2 GB whose traffic a gateway reports through `upstreamId`. */
async function trafficThrough(upstreamId: string, bytesDown: number) {
  const customer = await e2e.newPage();
  await signUpAndLogIn(e2e, customer, 'Net Customer');
  const me = await customer.evaluate(
    async () => (await (await fetch('/auth/user')).json()) as { user: { id: string; proxyUserId: string; proxyPassword: string } },
  );
  await e2e.internal.admin.adjustUserBalance.mutate({ id: me.user.id, deltaGB: 2, reason: 'e2e traffic' });
  const gw = e2e.internal.gateway;
  const { account } = await gw.authorize.mutate({ proxyUserId: me.user.proxyUserId, password: me.user.proxyPassword });
  if (!account.ok) throw new Error(account.message);
  const lease = await gw.reserveLease.mutate({ gatewayId: 'e2e-net-gw', proxyAccountId: account.proxyAccountId, bytes: bytesDown });
  await gw.report.mutate({
    gatewayId: 'e2e-net-gw',
    seq: 1,
    items: [
      {
        leaseId: lease.leaseId!,
        bytesUp: 0,
        bytesDown,
        sessions: 1,
        release: true,
        parts: [{ protocol: 'connect', country: 'US', state: '', city: '', upstreamId, bytesUp: 0, bytesDown, sessions: 1 }],
      },
    ],
    // Its connections through the pool: one connected in 120 ms, one the pool failed.
    logSessions: [[1, me.user.proxyUserId, account.proxyAccountId, 'US', '', '', 'rotating', 0]],
    logRows: [
      [Date.now() - 2000, 10, 'connect', 'a.example:443', 1, 0, bytesDown, 'ok', '', '', upstreamId, 1, 120],
      [Date.now() - 1000, 0, 'connect', 'a.example:443', 1, 0, 0, 'upstream_failed', 'upstream refused', '', upstreamId, 2, null],
    ],
  });
}

describe('admin network', () => {
  it('upstreams: add through the form, usage with cost, revenue and margin, per day, edit, disable, delete', async () => {
    await admin.getByRole('tab', { name: 'Upstreams', exact: true }).click();
    const table = admin.getByTestId('upstreams-table');
    await expect.poll(() => table.innerText()).toContain('No upstreams');

    const form = admin.getByTestId('upstream-form');
    // A preset fills the endpoint and both templates in the provider's grammar.
    expect(await form.getByLabel('Provider preset').locator('option').allInnerTexts()).toEqual([
      'Custom',
      'Oxylabs',
      'Bright Data',
      'Decodo',
      'IPRoyal',
      'Evomi',
      'SOAX',
    ]);
    await form.getByLabel('Provider preset').selectOption('Oxylabs');
    expect(await form.getByLabel('Host').inputValue()).toBe('pr.oxylabs.io');
    expect(await form.getByLabel('Username template').inputValue()).toContain('customer-USERNAME-cc-{country}');
    // The provider's longest documented session comes with the preset.
    expect(await form.getByLabel('Longest session (minutes)').inputValue()).toBe('30');
    // Untouched, it is refused: the account part in capitals, no password.
    await form.getByRole('button', { name: 'Add upstream' }).click();
    await form.getByText("Username template: replace USERNAME with your account's").waitFor();
    await form.getByText('Password is required').waitFor();
    expect(await form.innerText()).toContain('A new upstream is saved disabled: press Test on its row, and Enable it once the test works.');
    await form.getByLabel('Provider preset').selectOption('IPRoyal');
    expect(await form.getByLabel('Host').inputValue()).toBe('geo.iproyal.com');
    expect(await form.getByLabel('Port').inputValue()).toBe('12321');
    expect(await form.getByLabel('Password template').inputValue()).toContain('{password}_country-{country|lower}');
    await form.getByLabel('Provider preset').selectOption('Custom');
    await form.getByLabel('Password template').fill('');
    await form.getByLabel('Name', { exact: true }).fill('Provider One');
    await form.getByLabel('Protocol').selectOption('socks5');
    await form.getByLabel('Host').fill('proxy.provider.example');
    await form.getByLabel('Port').fill('99999');
    await form.getByLabel('Username template').fill('cust-{country}-sess-{session}');
    await form.getByLabel('Password', { exact: true }).fill('provider-secret');
    await form.getByLabel('Countries').fill('US, DE');
    await form.getByLabel('Weight').fill('2');
    await form.getByLabel('Longest session (minutes)').fill('');
    await form.getByLabel('Cost per GB ($)').fill('0.30');
    await form.getByLabel('Username template').fill('cust-{region}');
    await form.getByRole('button', { name: 'Add upstream' }).click();
    await form.getByText('Port must be from 1 to 65535').waitFor();
    await form.getByText('Username template: unknown placeholder {region}').waitFor();
    await form.getByLabel('Username template').fill('cust-{country}-sess-{session}');
    await form.getByLabel('Port').fill('1080');
    await form.getByRole('button', { name: 'Add upstream' }).click();
    const row = table.locator('tr[data-upstream="Provider One"]');
    await expect.poll(() => row.innerText()).toContain('socks5://proxy.provider.example:1080');
    expect(await row.innerText()).toContain('US, DE');
    // Saved disabled: no customer traffic goes there before the admin enables it.
    expect(await row.innerText()).toContain('Disabled');
    expect((await e2e.internal.gateway.upstreams.query()).upstreams).toEqual([]);
    expect(await admin.content()).not.toContain('provider-secret');

    const { upstreams } = await e2e.internal.admin.upstreams.query();
    await trafficThrough(upstreams[0]!.id, GiB);
    await admin.reload();
    await admin.getByRole('tab', { name: 'Upstreams', exact: true }).click();
    // 1 GB: cost $0.30, revenue $0.90, margin $0.60.
    await expect.poll(() => row.innerText()).toMatch(/1\.00 GB\s+\$0\.30\s+\$0\.90\s+\$0\.60/);
    await row.getByRole('button', { name: 'Provider One' }).click();
    const days = admin.getByTestId('upstream-days');
    await expect
      .poll(() => days.locator('tbody tr').first().innerText())
      .toMatch(new RegExp(`${new Date().toISOString().slice(0, 10)}\\s+1\\.00 GB\\s+\\$0\\.30\\s+\\$0\\.90\\s+\\$0\\.60\\s+50\\.0%\\s+120 ms`));
    expect(await days.locator('th').allTextContents()).toEqual(['Day', 'Traffic', 'Cost', 'Revenue', 'Margin', 'Success', 'Median connect']);
    expect(await admin.getByText('30 days: 50.0%, 120 ms').count()).toBe(1);
    expect(await days.locator('tbody tr').count()).toBe(30);
    await screenshots(admin, 'admin-upstreams');

    // The test button: one tunnel as a line would open it; this upstream's host does not resolve.
    await row.getByRole('button', { name: 'Test' }).click();
    const test = admin.getByTestId('upstream-test');
    await test.getByRole('button', { name: 'Run test' }).click();
    const answer = admin.getByTestId('upstream-test-answer');
    // One sentence that says what to check; the raw text under Details.
    await expect.poll(() => answer.innerText(), { timeout: 15_000 }).toContain("The upstream's host name does not resolve: check the host");
    expect(await answer.innerText()).toContain('Username sent: cust-US-sess-');
    await answer.getByText('Details').click();
    expect(await answer.getByTestId('upstream-test-details').innerText()).toContain('Cannot resolve proxy.provider.example');
    await test.getByRole('button', { name: 'Close' }).click();
    await row.getByRole('button', { name: 'Enable' }).click();
    await expect.poll(async () => (await e2e.internal.gateway.upstreams.query()).upstreams.length).toBe(1);

    await row.getByRole('button', { name: 'Edit' }).click();
    await expect.poll(() => form.getByLabel('Name', { exact: true }).inputValue()).toBe('Provider One');
    expect(await form.getByLabel('Cost per GB ($)').inputValue()).toBe('0.30');
    await form.getByLabel('Cost per GB ($)').fill('1.20');
    await form.getByRole('button', { name: 'Save upstream' }).click();
    // The margin goes negative at $1.20/GB, and the row says why.
    await expect.poll(() => row.innerText()).toMatch(/\$1\.20\s+\$0\.90\s+-\$0\.30/);
    // Saving the price left it enabled, even if the form opened from the row as it was before Enable.
    expect(await row.innerText()).toContain('Enabled');
    expect((await e2e.internal.gateway.upstreams.query()).upstreams).toHaveLength(1);
    expect(await row.getByTestId('upstream-cost-warning').innerText()).toBe(
      'Provider One costs $1.20 per GB, more than the $0.90 per GB it is sold for: every GB through it loses money',
    );
    await row.getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => row.innerText()).toContain('Disabled');
    expect((await e2e.internal.gateway.upstreams.query()).upstreams).toEqual([]);
    await row.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => table.innerText()).toContain('No upstreams');
  });

  it('gateways: the fleet from heartbeats, down after the silence', async () => {
    const beat = (id: string, at: Date) =>
      e2e.internal.gateway.heartbeat.mutate({
        gatewayId: id,
        version: '0.1.0',
        startedAt: at,
        openTunnels: 7,
        bytesPerSecUp: 1024 * 1024,
        bytesPerSecDown: 5 * 1024 * 1024,
        leasedBytes: 32 * 1024 * 1024,
        upstreamErrors: 2,
      });
    const started = new Date();
    await beat('gw-old:8080', started);
    await beat('gw-edge-1:8080', started);
    // The old one goes silent; the others keep beating.
    await new Promise((r) => setTimeout(r, 3500));
    await beat('gw-edge-1:8080', started);
    await beat('gw-edge-2:8080', new Date());

    await admin.getByRole('tab', { name: 'Gateways', exact: true }).click();
    const table = admin.getByTestId('gateways-table');
    const edge = table.locator('tr[data-gateway="gw-edge-1:8080"]');
    await expect.poll(() => edge.innerText()).toMatch(/Up\s+0\.1\.0/);
    expect(await edge.innerText()).toMatch(/7\s+1\.00 MB\s+5\.00 MB\s+32\.00 MB\s+2/);
    expect(await table.locator('tr[data-gateway="gw-old:8080"]').innerText()).toContain('Down');
    await screenshots(admin, 'admin-gateways');
  });
});
