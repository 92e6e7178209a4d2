/**
 * The Reconciliation view in Chromium: an upstream with a `custom` provider account (a fake of the
 * usage contract on loopback) and traffic reported through it as a gateway would; the admin opens
 * it on the Upstreams tab, sees the chart and the table (provider, ours, drift, cost), fetches the
 * last 7 days with the button, and the CSV link answers the same rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startFakeJsonApi } from '@proxyhub/testing';
import { adminLogIn, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

const KEY = 'recon-e2e-key-0123456789';
const DAY_MS = 86_400_000;
const today = new Date().toISOString().slice(0, 10);
const yesterday = new Date(Date.now() - DAY_MS).toISOString().slice(0, 10);
/** What the fake provider counted per day. */
const providerCount = new Map<string, string>([
  [today, '1040000'],
  [yesterday, '5000'],
]);

let e2e: E2E;
let admin: Page;
let provider: Awaited<ReturnType<typeof startFakeJsonApi>>;
let upstreamId: string;

beforeAll(async () => {
  provider = await startFakeJsonApi((req, send) => {
    const url = new URL(req.url, 'http://provider');
    if (req.headers.authorization !== `Bearer ${KEY}`) return send(401, { error: 'bad key' });
    if (url.pathname === '/balance') return send(200, { bytes: '1000000000000' });
    const date = url.searchParams.get('date') ?? '';
    send(200, { date, bytes: providerCount.get(date) ?? '0' });
  });
  e2e = await startE2E();
  const created = await e2e.internal.admin.createUpstream.mutate({
    name: 'Metered pool',
    protocol: 'http',
    host: 'pool.example.net',
    port: 8000,
    password: 'pool-secret',
    countries: ['US'],
    costPerGbCents: 250,
    account: { provider: 'custom', apiKey: KEY, balanceUrl: `${provider.url}/balance`, usageUrl: `${provider.url}/usage` },
  });
  upstreamId = created.id;
  // 1,000,000 bytes through the pool today, as a gateway reports them: the usage and the connection's record.
  const customer = await e2e.newPage();
  await signUpAndLogIn(e2e, customer, 'Recon Customer');
  const me = await customer.evaluate(
    async () => ((await (await fetch('/auth/user')).json()) as { user: { id: string; proxyUserId: string; proxyPassword: string } }).user,
  );
  await e2e.internal.admin.adjustUserBalance.mutate({ id: me.id, deltaGB: 1, reason: 'e2e traffic' });
  const gw = e2e.internal.gateway;
  const { account } = await gw.authorize.mutate({ proxyUserId: me.proxyUserId, password: me.proxyPassword });
  if (!account.ok) throw new Error(account.message);
  const lease = await gw.reserveLease.mutate({ gatewayId: 'e2e-recon-gw', proxyAccountId: account.proxyAccountId, bytes: 1_000_000 });
  const part = { protocol: 'connect' as const, country: 'US', state: '', city: '', upstreamId, bytesUp: 0, bytesDown: 1_000_000, sessions: 1 };
  await gw.report.mutate({
    gatewayId: 'e2e-recon-gw',
    seq: 1,
    items: [{ leaseId: lease.leaseId!, bytesUp: 0, bytesDown: 1_000_000, sessions: 1, release: true, parts: [part] }],
    logSessions: [[1, me.proxyUserId, account.proxyAccountId, 'US', '', '', 'rotating', 0]],
    logRows: [[Date.now() - 1000, 500, 'connect', 'example.com:443', 1, 0, 1_000_000, 'ok', '', '', upstreamId]],
  });
  // Today's count, as an admin's reconcile of one day fetches it.
  await e2e.internal.admin.reconcileUpstream.mutate({ id: upstreamId, date: today });
  admin = await e2e.newPage();
  await adminLogIn(admin);
});
afterAll(async () => {
  await e2e?.close();
  await provider?.close();
});

const rowText = (day: string) => admin.getByTestId('reconciliation-table').locator(`tr[data-day="${day}"]`).innerText();

describe('admin reconciliation', () => {
  it('shows the chart and the table of provider and our bytes per day, fetches the last 7 days, links the CSV', async () => {
    await admin.getByRole('tab', { name: 'Upstreams', exact: true }).click();
    await admin.getByTestId('upstreams-table').getByRole('button', { name: 'Metered pool' }).click();
    const view = admin.getByTestId('upstream-reconciliation');
    await view.waitFor();
    // 30 days, newest first; today: 1,040,000 against 1,000,000 bytes (under a MB, so in KB), +4.00 %, $0.00 at $2.50/GB.
    expect(await admin.getByTestId('reconciliation-table').locator('tbody tr').count()).toBe(30);
    const todayRow = await rowText(today);
    expect(todayRow).toContain('1015.63 KB');
    expect(todayRow).toContain('976.56 KB');
    expect(todayRow).toContain('+4.00%');
    expect(todayRow).toContain('$0.00');
    expect(await rowText(yesterday)).toContain('Not fetched');
    // The chart draws a bar per day with a figure: today's provider and ours.
    await expect.poll(() => admin.getByTestId('reconciliation-chart').locator('.recharts-bar-rectangle').count()).toBeGreaterThanOrEqual(2);
    expect(await admin.getByTestId('reconciliation-chart').innerText()).toContain('Provider');

    await admin.getByRole('button', { name: 'Fetch last 7 days' }).click();
    await admin.getByText('Fetched 7 days from the provider.').waitFor();
    // Yesterday: 5,000 bytes at the provider, none of ours (no percentage against zero).
    await expect.poll(() => rowText(yesterday)).not.toContain('Not fetched');
    expect(await rowText(yesterday)).toContain('+4.88 KB');

    const href = await admin.getByTestId('reconciliation-csv').getAttribute('href');
    expect(href).toBe(`/admin/upstreams/${upstreamId}/reconciliation?format=csv`);
    const csv = await admin.evaluate(async (url) => {
      const r = await fetch(url);
      return { type: r.headers.get('content-type'), text: await r.text() };
    }, href!);
    expect(csv.type).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).toBe('date,providerBytes,ourBytes,driftBytes,driftPercent,costCents,fetchedAt');
    expect(lines).toHaveLength(31);
    expect(lines[30]).toMatch(new RegExp(`^${today},1040000,1000000,40000,4,0,\\d{4}-`));
    expect(lines[29]).toMatch(new RegExp(`^${yesterday},5000,0,5000,,0,\\d{4}-`));
    await screenshots(admin, 'admin-reconciliation');
  });
});
