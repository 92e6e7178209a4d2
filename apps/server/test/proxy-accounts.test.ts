/**
 * Proxy accounts over HTTP: the main account, sub-accounts (create, at most 100, rename, cap,
 * disable), password rotation; caps enforced on leases; validation and other users' accounts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { addCredits, expectLedgerOk, internalClient } from '@proxyhub/testing';
import { signedInUser, startTestServer, type TestServer } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

const GB = 1073741824n;
type Account = {
  proxyUserId: string;
  proxyPassword: string;
  name: string;
  kind: string;
  capBytes: string | null;
  usedBytes: string;
  disabled: boolean;
  createdAt: string;
};

describe('/api/proxy-accounts', () => {
  it('lists the main account; creates sub-accounts (201) with their own credentials and caps; 0.01 GB is a valid cap', async () => {
    const { client, user } = await signedInUser(server);
    const list = await client.get<{ accounts: Account[] }>('/api/proxy-accounts');
    expect(list.status).toBe(200);
    expect(list.body.accounts).toEqual([
      {
        proxyUserId: user.proxyUserId,
        proxyPassword: user.proxyPassword,
        name: 'Main',
        kind: 'main',
        capBytes: null,
        usedBytes: '0',
        dailyLimitBytes: null,
        monthlyLimitBytes: null,
        dayUsedBytes: '0',
        monthUsedBytes: '0',
        expiresAt: null,
        maxConnections: null,
        disabled: false,
        createdAt: expect.any(String),
      },
    ]);
    const made = await client.post<{ account: Account }>('/api/proxy-accounts', { name: 'Scraper EU', capGB: 0.01 });
    expect(made.status).toBe(201);
    expect(made.body.account).toMatchObject({ name: 'Scraper EU', kind: 'sub', capBytes: '10737419', usedBytes: '0', disabled: false });
    expect(made.body.account.proxyUserId).not.toBe(user.proxyUserId);
    expect(made.body.account.proxyPassword).toMatch(/^\S{8,}$/);
    const uncapped = await client.post<{ account: Account }>('/api/proxy-accounts', { name: 'No cap', capGB: null });
    expect(uncapped.body.account.capBytes).toBeNull();

    // The API key sees the same.
    const key = server.client({ origin: null });
    key.bearer = user.apiKey;
    expect((await key.get<{ accounts: Account[] }>('/api/proxy-accounts')).body.accounts.map((a) => a.kind)).toEqual(['main', 'sub', 'sub']);

    for (const [body, error] of [
      [{ name: '', capGB: 1 }, 'Name is required'],
      [{ name: 'x', capGB: 0 }, 'Cap must be more than 0 GB'],
      [{ name: 'x', capGB: -1 }, 'Cap must be more than 0 GB'],
      [{ name: 'x', capGB: 1.005 }, 'Cap has at most two decimals'],
      [{ name: 'x', capGB: 'lots' }, 'Cap must be a number of GB'],
    ] as const) {
      const r = await client.post<{ error: string }>('/api/proxy-accounts', body);
      expect({ body, status: r.status, error: r.body.error }).toEqual({ body, status: 400, error });
    }
    expect((await server.client().get('/api/proxy-accounts')).status).toBe(401);
  });

  it('renames, caps, disables and rotates; the main account is fixed; other users get 404', async () => {
    const { client, user } = await signedInUser(server);
    const { account } = (await client.post<{ account: Account }>('/api/proxy-accounts', { name: 'A' })).body;
    const path = `/api/proxy-accounts/${account.proxyUserId}`;
    const renamed = await client.request<{ account: Account }>('PATCH', path, { name: 'Renamed', capGB: 2.5 });
    expect(renamed.body.account).toMatchObject({ name: 'Renamed', capBytes: String((25n * GB) / 10n) });
    expect((await client.request<{ account: Account }>('PATCH', path, { disabled: true })).body.account.disabled).toBe(true);
    expect((await client.request<{ error: string }>('PATCH', path, {})).body.error).toBe(
      'Nothing to change: give a name, a cap, a limit, an expiry or whether it is disabled',
    );
    const main = await client.request<{ error: string }>('PATCH', `/api/proxy-accounts/${user.proxyUserId}`, { name: 'X' });
    expect(main).toMatchObject({ status: 400, body: { error: 'The main account cannot be renamed, capped or disabled; make a sub-account instead' } });

    const gw = internalClient(server).gateway;
    const rotated = await client.post<{ proxyPassword: string }>(`${path}/rotate-password`, {});
    expect(rotated.status).toBe(200);
    expect(rotated.body.proxyPassword).not.toBe(account.proxyPassword);
    expect((await gw.authorize.mutate({ proxyUserId: account.proxyUserId, password: account.proxyPassword })).account.ok).toBe(false);
    // The main account rotates through the same path.
    const mainRotated = await client.post<{ proxyPassword: string }>(`/api/proxy-accounts/${user.proxyUserId}/rotate-password`, {});
    expect((await client.get<{ user: { proxyPassword: string } }>('/auth/user')).body.user.proxyPassword).toBe(mainRotated.body.proxyPassword);

    const other = await signedInUser(server);
    expect((await other.client.request('PATCH', path, { name: 'mine now' })).status).toBe(404);
    expect((await other.client.post(`${path}/rotate-password`, {})).status).toBe(404);
  });

  it('at most 100 sub-accounts, also when created at once', async () => {
    const { client } = await signedInUser(server);
    const results = await Promise.all(Array.from({ length: 104 }, (_, i) => client.post(`/api/proxy-accounts`, { name: `n${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(100);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => [r.status, (r.body as { error: string }).error])).toEqual(Array(4).fill([409, 'At most 100 sub-accounts per user']));
  });
});

describe('caps on leases', () => {
  it('a sub-account leases at most its cap less what it used and holds; the main account is not limited by it', async () => {
    const { client, user } = await signedInUser(server);
    await addCredits(server, user.id, 2n * GB);
    const { account } = (await client.post<{ account: Account }>('/api/proxy-accounts', { name: 'capped', capGB: 0.01 })).body;
    const gw = internalClient(server).gateway;
    const sub = await gw.authorize.mutate({ proxyUserId: account.proxyUserId, password: account.proxyPassword });
    if (!sub.account.ok) throw new Error(sub.account.message);
    const first = await gw.reserveLease.mutate({ gatewayId: 'cap-gw', proxyAccountId: sub.account.proxyAccountId, bytes: 8_000_000 });
    expect(first.grantedBytes).toBe(8_000_000n);
    const second = await gw.reserveLease.mutate({ gatewayId: 'cap-gw', proxyAccountId: sub.account.proxyAccountId, bytes: 8_000_000 });
    expect(second.grantedBytes).toBe(10737419n - 8_000_000n);
    expect((await gw.reserveLease.mutate({ gatewayId: 'cap-gw', proxyAccountId: sub.account.proxyAccountId, bytes: 1000 })).outcome).toBe('cap_reached');
    await gw.report.mutate({
      gatewayId: 'cap-gw',
      seq: 1,
      items: [
        { leaseId: first.leaseId!, bytesUp: 0, bytesDown: 8_000_000, sessions: 1, release: true },
        { leaseId: second.leaseId!, bytesUp: 0, bytesDown: 1_000_000, sessions: 0, release: true },
      ],
    });
    const listed = (await client.get<{ accounts: Account[] }>('/api/proxy-accounts')).body.accounts.find((a) => a.proxyUserId === account.proxyUserId)!;
    expect(listed.usedBytes).toBe('9000000');
    // What the second lease did not use is room again.
    const third = await gw.reserveLease.mutate({ gatewayId: 'cap-gw', proxyAccountId: sub.account.proxyAccountId, bytes: 8_000_000 });
    expect(third.grantedBytes).toBe(10737419n - 9_000_000n);
    await gw.releaseLeases.mutate({ gatewayId: 'cap-gw' });

    const main = await gw.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
    if (!main.account.ok) throw new Error(main.account.message);
    const big = await gw.reserveLease.mutate({ gatewayId: 'cap-gw', proxyAccountId: main.account.proxyAccountId, bytes: 100_000_000 });
    expect(big.grantedBytes).toBe(100_000_000n);
    await gw.releaseLeases.mutate({ gatewayId: 'cap-gw' });
  });
});

describe('sub-account limits', () => {
  it('POST and PATCH take expiresAt, dailyLimitGB, monthlyLimitGB and maxConnections; answers carry them; bad values are a 400 naming the field', async () => {
    const { client } = await signedInUser(server);
    const expiresAt = '2030-01-02T03:04:05.000Z';
    const made = await client.post<{ account: Account & Record<string, unknown> }>('/api/proxy-accounts', {
      name: 'limited',
      capGB: 1,
      dailyLimitGB: 0.5,
      monthlyLimitGB: 2,
      maxConnections: 10,
      expiresAt,
    });
    expect(made.status).toBe(201);
    expect(made.body.account).toMatchObject({
      capBytes: String(GB),
      dailyLimitBytes: String(GB / 2n),
      monthlyLimitBytes: String(2n * GB),
      maxConnections: 10,
      expiresAt,
      dayUsedBytes: '0',
      monthUsedBytes: '0',
    });
    const id = made.body.account.proxyUserId;
    const patched = await client.request<{ account: Record<string, unknown> }>('PATCH', `/api/proxy-accounts/${id}`, { dailyLimitGB: null, maxConnections: 3 });
    expect(patched.status).toBe(200);
    expect(patched.body.account).toMatchObject({ dailyLimitBytes: null, monthlyLimitBytes: String(2n * GB), maxConnections: 3, expiresAt });
    const cleared = await client.request<{ account: Record<string, unknown> }>('PATCH', `/api/proxy-accounts/${id}`, { expiresAt: null, maxConnections: null });
    expect(cleared.body.account).toMatchObject({ expiresAt: null, maxConnections: null });
    for (const [body, error] of [
      [{ dailyLimitGB: 0 }, 'Daily limit must be more than 0 GB'],
      [{ monthlyLimitGB: 'x' }, 'Monthly limit must be a number of GB'],
      [{ maxConnections: 0 }, 'Max connections must be at least 1'],
      [{ maxConnections: 1.5 }, 'Max connections must be a whole number'],
      [{ expiresAt: 'tomorrow' }, 'Expiry must be a date and time, or empty'],
    ] as const) {
      const c = await client.post<{ error: string }>('/api/proxy-accounts', { name: 'x', ...body });
      expect({ body, status: c.status, error: c.body.error }).toEqual({ body, status: 400, error });
      const p = await client.request<{ error: string }>('PATCH', `/api/proxy-accounts/${id}`, body);
      expect({ body, status: p.status, error: p.body.error }).toEqual({ body, status: 400, error });
    }
  });

  it('a daily limit bounds leases within the UTC day, a new day starts it again while the month counts on; an expired account is refused', async () => {
    const { client, user } = await signedInUser(server);
    await addCredits(server, user.id, 2n * GB);
    const { account } = (await client.post<{ account: Account }>('/api/proxy-accounts', { name: 'daily', dailyLimitGB: 0.01, monthlyLimitGB: 0.05 })).body;
    const gw = internalClient(server).gateway;
    const sub = await gw.authorize.mutate({ proxyUserId: account.proxyUserId, password: account.proxyPassword });
    if (!sub.account.ok) throw new Error(sub.account.message);
    const accountId = sub.account.proxyAccountId;
    const lease = await gw.reserveLease.mutate({ gatewayId: 'day-gw', proxyAccountId: accountId, bytes: 20_000_000 });
    expect(lease.grantedBytes).toBe(10737419n);
    await gw.report.mutate({ gatewayId: 'day-gw', seq: 1, items: [{ leaseId: lease.leaseId!, bytesUp: 0, bytesDown: 10737419, sessions: 1, release: true }] });
    expect((await gw.reserveLease.mutate({ gatewayId: 'day-gw', proxyAccountId: accountId, bytes: 1000 })).outcome).toBe('cap_reached');
    // The day's usage was yesterday's: today has its whole limit, the month what is left of it.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const sameMonth = yesterday.slice(0, 7) === new Date().toISOString().slice(0, 7);
    await server.deps.db.execute(sql`update proxy_accounts set usage_day = ${yesterday}::date where id = ${accountId}`);
    const listed = (await client.get<{ accounts: Array<Record<string, unknown>> }>('/api/proxy-accounts')).body.accounts.find(
      (a) => a.proxyUserId === account.proxyUserId,
    )!;
    expect(listed).toMatchObject({ dayUsedBytes: '0', monthUsedBytes: sameMonth ? '10737419' : '0', usedBytes: '10737419' });
    const next = await gw.reserveLease.mutate({ gatewayId: 'day-gw', proxyAccountId: accountId, bytes: 20_000_000 });
    expect(next.grantedBytes).toBe(10737419n);
    await gw.report.mutate({ gatewayId: 'day-gw', seq: 2, items: [{ leaseId: next.leaseId!, bytesUp: 0, bytesDown: 1000, sessions: 1, release: true }] });
    const after = (await client.get<{ accounts: Array<Record<string, unknown>> }>('/api/proxy-accounts')).body.accounts.find(
      (a) => a.proxyUserId === account.proxyUserId,
    )!;
    expect(after).toMatchObject({ dayUsedBytes: '1000', monthUsedBytes: sameMonth ? String(10737419 + 1000) : '1000' });

    await client.request('PATCH', `/api/proxy-accounts/${account.proxyUserId}`, { expiresAt: new Date(Date.now() - 1000).toISOString() });
    const expired = await gw.authorize.mutate({ proxyUserId: account.proxyUserId, password: account.proxyPassword });
    expect(expired.account).toEqual({ ok: false, reason: 'expired', message: 'Proxy account expired' });
    expect((await gw.reserveLease.mutate({ gatewayId: 'day-gw', proxyAccountId: accountId, bytes: 1000 })).outcome).toBe('expired');
  });

  it('maxConnections across gateways: each gateway is allowed the limit less what the others reported open', async () => {
    const { client, user } = await signedInUser(server);
    const { account } = (await client.post<{ account: Account }>('/api/proxy-accounts', { name: 'conns', maxConnections: 5 })).body;
    const gw = internalClient(server).gateway;
    const sub = await gw.authorize.mutate({ proxyUserId: account.proxyUserId, password: account.proxyPassword });
    if (!sub.account.ok) throw new Error(sub.account.message);
    expect(sub.account.maxConnections).toBe(5);
    const id = sub.account.proxyAccountId;
    const a = await gw.report.mutate({ gatewayId: 'conn-a', seq: 1, items: [], openConnections: [{ proxyAccountId: id, open: 3 }] });
    expect(a.allowances).toEqual([{ proxyAccountId: id, allowed: 5 }]);
    const b = await gw.report.mutate({ gatewayId: 'conn-b', seq: 1, items: [], openConnections: [{ proxyAccountId: id, open: 1 }] });
    expect(b.allowances).toEqual([{ proxyAccountId: id, allowed: 2 }]);
    const a2 = await gw.report.mutate({ gatewayId: 'conn-a', seq: 2, items: [], openConnections: [{ proxyAccountId: id, open: 3 }] });
    expect(a2.allowances).toEqual([{ proxyAccountId: id, allowed: 4 }]);
    // Gateway a closed them all (not listed): b may use the whole limit.
    await gw.report.mutate({ gatewayId: 'conn-a', seq: 3, items: [], openConnections: [] });
    const b2 = await gw.report.mutate({ gatewayId: 'conn-b', seq: 2, items: [], openConnections: [{ proxyAccountId: id, open: 1 }] });
    expect(b2.allowances).toEqual([{ proxyAccountId: id, allowed: 5 }]);
    void user;
  });
});
