/**
 * Upstreams' provider accounts over HTTP: saved with the upstream (key sealed, never answered),
 * bad input a 400 naming the field with nothing saved; each provider's adapter against a fake of
 * its API on loopback (a wrong key refused); the custom contract's failures are errors with their
 * reason, never a zero; the balance watch's low and dry crossings raise one alert each (listed at
 * GET /admin/alerts, sent on Telegram to owners and finance), resolved on return to ok, with the
 * gauges on /metrics; and two servers on one database read each account once per period.
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkUpstreamBalances, ProviderError, providerAccountOf, readProviderBalance, readProviderUsage } from '@proxyhub/api';
import { adminUsers, auditLog, jobClaims, telegramChats, telegramOutbox, upstreamAccounts } from '@proxyhub/db';
import { createServer } from '../src/server';
import { adminClient } from './credits-helpers';
import {
  FAKE_BRIGHTDATA_CENTS_PER_GB,
  FAKE_IPROYAL_HASH,
  FAKE_PACKAGE,
  fakeProviderTemplate,
  promSample,
  startFakeProvider,
  startTestServer,
  type FakeProvider,
  type FakeProviderName,
  type HttpClient,
  type TestServer,
} from './helpers';

const GB = 1073741824n;
let server: TestServer;
let strict: TestServer;
let admin: HttpClient;
let strictAdmin: HttpClient;
const fakes: FakeProvider[] = [];

beforeAll(async () => {
  server = await startTestServer({ upstreams: { allowPrivate: true } });
  strict = await startTestServer({ upstreams: { allowPrivate: false } });
  admin = await adminClient(server);
  strictAdmin = await adminClient(strict);
}, 180_000);
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  await server?.close();
  await strict?.close();
});

interface AccountView {
  provider: string;
  apiKeySet: boolean;
  lowBalanceGB: number;
  balance: { bytes: string; checkedAt: string } | null;
  status: string;
  error: string | null;
}
interface UpstreamView {
  id: string;
  name: string;
  account: AccountView | null;
}

async function fake(provider: FakeProviderName, balanceBytes = 10n * GB) {
  const f = await startFakeProvider(provider, { balanceBytes });
  fakes.push(f);
  return f;
}

const base = (name: string) => ({ name, protocol: 'http', host: 'pool.example.net', port: 8000, usernameTemplate: 'user-{country}', password: 'pw' });

async function createWith(client: HttpClient, body: Record<string, unknown>) {
  return client.request<{ upstream: UpstreamView; error?: string }>('POST', '/admin/upstreams', body);
}

async function listed(client: HttpClient, id: string): Promise<UpstreamView> {
  const r = await client.get<{ upstreams: UpstreamView[] }>('/admin/upstreams');
  expect(r.status).toBe(200);
  return r.body.upstreams.find((u) => u.id === id)!;
}

/** Polls until `fn` answers something truthy; that answer. */
async function waitFor<T>(fn: () => Promise<T | false>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const check = () => checkUpstreamBalances(server.database.db, server.deps.secrets, { allowPrivate: true });

describe('provider accounts on upstreams', () => {
  it('are saved with the upstream, the key sealed and never answered, kept when omitted and removed with null', async () => {
    const f = await fake('custom');
    const made = await createWith(admin, { ...base('Custom pool'), account: f.account({ lowBalanceGB: 1.5 }) });
    expect(made.status).toBe(201);
    expect(made.body.upstream.account).toMatchObject({
      provider: 'custom',
      apiKeySet: true,
      lowBalanceGB: 1.5,
      balance: null,
      status: 'unchecked',
      error: null,
    });
    expect(JSON.stringify(made.body)).not.toContain(f.key);
    const id = made.body.upstream.id;
    const [row] = await server.database.db.select().from(upstreamAccounts).where(eq(upstreamAccounts.upstreamId, id));
    expect(row!.apiKeyEnc).not.toContain(f.key);
    expect(server.deps.secrets.decrypt(row!.apiKeyEnc)).toBe(f.key);
    expect(row!.lowBalanceBytes).toBe((3n * GB + 1n) / 2n);

    const listedView = await listed(admin, id);
    expect(listedView.account).toMatchObject({ provider: 'custom', apiKeySet: true, lowBalanceGB: 1.5, status: 'unchecked' });
    expect(JSON.stringify(await admin.get('/admin/upstreams'))).not.toContain(f.key);
    // The audit log records the change with the key redacted.
    const audited = await server.database.db.select().from(auditLog);
    expect(JSON.stringify(audited)).toContain('[redacted]');
    expect(JSON.stringify(audited)).not.toContain(f.key);

    // A change without apiKey keeps the stored key; the check then reads the balance with it.
    const { apiKey: _k, ...withoutKey } = f.account({ lowBalanceGB: 2 });
    const changed = await admin.request<{ upstream: UpstreamView }>('PATCH', `/admin/upstreams/${id}`, { account: withoutKey });
    expect(changed.status).toBe(200);
    expect(changed.body.upstream.account).toMatchObject({ apiKeySet: true, lowBalanceGB: 2 });
    await check();
    expect((await listed(admin, id)).account).toMatchObject({ status: 'ok', balance: { bytes: String(10n * GB) }, error: null });

    const removed = await admin.request<{ upstream: UpstreamView }>('PATCH', `/admin/upstreams/${id}`, { account: null });
    expect(removed.body.upstream.account).toBeNull();
    expect(await server.database.db.select().from(upstreamAccounts).where(eq(upstreamAccounts.upstreamId, id))).toHaveLength(0);
    await admin.request('DELETE', `/admin/upstreams/${id}`);
  });

  it('refuses bad input with a 400 naming the field, and saves nothing', async () => {
    const before = (await strictAdmin.get<{ upstreams: unknown[] }>('/admin/upstreams')).body.upstreams.length;
    const custom = { provider: 'custom', apiKey: 'k', balanceUrl: 'https://provider.example/balance', usageUrl: 'https://provider.example/usage' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...custom, provider: 'acme' }, 'Provider must be one of custom, oxylabs, brightdata, decodo, iproyal, soax'],
      [{ ...custom, balanceUrl: 'https://169.254.169.254/latest/meta-data' }, 'Balance URL must not point to a private, loopback or metadata address'],
      [{ ...custom, usageUrl: 'https://10.0.0.7/usage' }, 'Usage URL must not point to a private, loopback or metadata address'],
      [{ ...custom, balanceUrl: 'https://localhost/balance' }, 'Balance URL must not point to a private, loopback or metadata address'],
      [{ ...custom, balanceUrl: 'http://provider.example/balance' }, 'Balance URL must start with https://'],
      [{ ...custom, balanceUrl: 'ftp://provider.example/balance' }, 'Balance URL must be an https:// address'],
      [{ ...custom, lowBalanceGB: -1 }, 'Low balance threshold must be 0 GB or more'],
      [{ ...custom, lowBalanceGB: 'lots' }, 'Low balance threshold must be a number of GB'],
      [{ provider: 'custom', apiKey: 'k', usageUrl: custom.usageUrl }, 'Balance URL is required for a custom provider'],
      [{ provider: 'oxylabs' }, 'API key is required for Oxylabs'],
    ];
    for (const [account, error] of cases) {
      const r = await createWith(strictAdmin, { ...base('Refused'), account });
      expect({ account, status: r.status, error: r.body.error }).toEqual({ account, status: 400, error });
    }
    expect((await strictAdmin.get<{ upstreams: unknown[] }>('/admin/upstreams')).body.upstreams).toHaveLength(before);

    // A change with a bad account changes nothing else either.
    const made = await createWith(strictAdmin, base('Kept'));
    expect(made.status).toBe(201);
    const r = await strictAdmin.request<{ error: string }>('PATCH', `/admin/upstreams/${made.body.upstream.id}`, {
      name: 'Renamed',
      account: { ...custom, balanceUrl: 'https://169.254.169.254/' },
    });
    expect(r).toMatchObject({ status: 400, body: { error: 'Balance URL must not point to a private, loopback or metadata address' } });
    expect(await listed(strictAdmin, made.body.upstream.id)).toMatchObject({ name: 'Kept', account: null });
  });
});

describe('provider adapters', () => {
  const providers: FakeProviderName[] = ['custom', 'oxylabs', 'brightdata', 'decodo', 'iproyal', 'soax'];
  it.each(providers)('%s: the balance and a day of usage from its API, a wrong key an error with its reason', async (provider) => {
    const balance = (5n * GB) / 2n;
    const f = await fake(provider, balance);
    f.usage.set('2026-11-20', 3n * GB + 7n * 1048576n);
    const made = await createWith(admin, {
      ...base(`${provider} pool`),
      usernameTemplate: fakeProviderTemplate(provider),
      costPerGbCents: FAKE_BRIGHTDATA_CENTS_PER_GB,
      account: f.account(),
    });
    expect(made.status).toBe(201);
    const id = made.body.upstream.id;
    await check();
    expect((await listed(admin, id)).account).toMatchObject({ provider, status: 'ok', balance: { bytes: String(balance) }, error: null });
    expect(f.calls).toBeGreaterThan(0);

    const account = (await providerAccountOf(server.database.db, server.deps.secrets, id))!;
    const usage = await readProviderUsage(account, '2026-11-20', { allowPrivate: true });
    // Providers that count in GB answer with their decimals: within a kilobyte of the bytes.
    expect(Number(usage - (3n * GB + 7n * 1048576n))).toBeLessThanOrEqual(1024);
    expect(Number(usage - (3n * GB + 7n * 1048576n))).toBeGreaterThanOrEqual(-1024);
    await expect(readProviderUsage({ ...account, apiKey: 'not-the-key' }, '2026-11-20', { allowPrivate: true })).rejects.toThrow(
      `HTTP 401 from ${new URL(f.url).host}`,
    );

    const wrong = await admin.request('PATCH', `/admin/upstreams/${id}`, { account: f.account({ apiKey: 'not-the-key' }) });
    expect(wrong.status).toBe(200);
    await check();
    const { account: after } = await listed(admin, id);
    expect(after).toMatchObject({ status: 'error', error: `HTTP 401 from ${new URL(f.url).host}` });
    await admin.request('DELETE', `/admin/upstreams/${id}`);
  });
});

/** An upstream reading `f`, and its provider account as the adapters get it. */
async function accountFor(f: FakeProvider) {
  const made = await createWith(admin, { ...base(`${f.provider} ${fakes.length}`), usernameTemplate: fakeProviderTemplate(f.provider), account: f.account() });
  expect(made.status).toBe(201);
  return (await providerAccountOf(server.database.db, server.deps.secrets, made.body.upstream.id))!;
}
const local = { allowPrivate: true };

describe('IPRoyal usage report', () => {
  it("asks the account's hash for one UTC day in whole bytes and sums the CSV's traffic column; headers only is 0", async () => {
    const f = await fake('iproyal');
    f.usage.set('2026-11-20', 3n * GB + 7n);
    f.usage.set('2026-11-21', 5n * GB);
    const account = await accountFor(f);
    expect(await readProviderUsage(account, '2026-11-20', local)).toBe(3n * GB + 7n);
    const asked = f.requests.filter((r) => r.url.startsWith('/residential/data-usage-report'));
    expect(asked).toHaveLength(1);
    expect(Object.fromEntries(new URL(asked[0]!.url, f.url).searchParams)).toEqual({
      hash: FAKE_IPROYAL_HASH,
      date_from: '2026-11-20',
      date_to: '2026-11-20',
      measurement_unit: 'B',
      rounding_decimal: '0',
      time_zone: 'UTC',
    });
    expect(asked[0]!.headers).toMatchObject({ authorization: `Bearer ${f.key}`, accept: 'text/csv' });
    // A day without traffic: the report is its header line alone.
    expect(await readProviderUsage(account, '2026-11-22', local)).toBe(0n);

    // Several rows, quoted fields and a BOM, as a CSV parser reads them: the one traffic column summed.
    f.usageCsv = '\uFEFF"Date","Proxy, type","Data usage (B)"\r\n2026-11-20,"resi, rotating",1000\r\n2026-11-20,"resi, sticky",234\r\n\r\n';
    expect(await readProviderUsage(account, '2026-11-20', local)).toBe(1234n);
    f.usageCsv = 'Date,Traffic (B)\n';
    expect(await readProviderUsage(account, '2026-11-20', local)).toBe(0n);
  });

  it("a wrong key, a hash that is not the account's and a malformed report are errors with their reason, never a zero", async () => {
    const f = await fake('iproyal');
    f.usage.set('2026-11-20', 10n);
    const account = await accountFor(f);
    const host = new URL(f.url).host;
    await expect(readProviderUsage({ ...account, apiKey: 'not-the-key' }, '2026-11-20', local)).rejects.toThrow(`HTTP 401 from ${host}`);
    const report = (hash: string, key = f.key) =>
      fetch(`${f.url}/residential/data-usage-report?hash=${hash}&date_from=2026-11-20&date_to=2026-11-20&measurement_unit=B&rounding_decimal=0&time_zone=UTC`, {
        headers: { authorization: `Bearer ${key}` },
      });
    expect((await report('01H7SOMEONEELSE')).status).toBe(403);
    expect((await report(FAKE_IPROYAL_HASH, 'not-the-key')).status).toBe(401);
    const ok = await report(FAKE_IPROYAL_HASH);
    expect([ok.status, ok.headers.get('content-type'), await ok.text()]).toEqual([200, 'text/csv', 'Date,Traffic (B)\r\n2026-11-20,10\r\n']);

    const malformed: Array<[string, string | RegExp]> = [
      ['Date,Country\n2026-11-20,US\n', 'Malformed answer: no traffic column in CSV headers ["Date","Country"]'],
      ['Date,Traffic (B),Usage (B)\n2026-11-20,1,1\n', 'Malformed answer: more than one traffic column in CSV headers ["Date","Traffic (B)","Usage (B)"]'],
      [
        'Date,Traffic (B)\n2026-11-20,1.5 GB\n',
        'Malformed answer: Traffic (B) in row 1 is "1.5 GB", not a whole number of bytes (CSV headers ["Date","Traffic (B)"])',
      ],
      ['Date,Traffic (B)\n2026-11-20,-5\n', 'Malformed answer: Traffic (B) in row 1 is "-5", not a whole number of bytes (CSV headers ["Date","Traffic (B)"])'],
      ['Date,Traffic (B)\n2026-11-20\n', /^Malformed answer: not CSV \(/],
      ['Date,Traffic (B)\n"2026-11-20,5\n', /^Malformed answer: not CSV \(/],
      ['', 'Malformed answer: the report has no CSV header'],
    ];
    for (const [csv, reason] of malformed) {
      f.usageCsv = csv;
      const err = await readProviderUsage(account, '2026-11-20', local).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, csv).toBeInstanceOf(ProviderError);
      if (typeof reason === 'string') expect((err as Error).message, csv).toBe(reason);
      else expect((err as Error).message, csv).toMatch(reason);
    }
  });
});

describe('SOAX', () => {
  it('sends the key in the api-key header only, never in the URL; a key in the query string is refused', async () => {
    const f = await fake('soax', 4n * GB);
    f.usage.set('2026-11-20', 99n);
    const account = await accountFor(f);
    expect(await readProviderBalance(account, local)).toBe(4n * GB);
    expect(await readProviderUsage(account, '2026-11-20', local)).toBe(99n);
    expect(f.requests).toHaveLength(2);
    for (const r of f.requests) {
      expect(r.headers['api-key']).toBe(f.key);
      expect(r.url).not.toContain(f.key);
    }
    const inQuery = await fetch(`${f.url}/v1/packages/${FAKE_PACKAGE}?api_key=${f.key}`, { headers: { 'api-key': f.key } });
    expect(inQuery.status).toBe(400);
    await expect(readProviderBalance({ ...account, apiKey: 'not-the-key' }, local)).rejects.toThrow(`HTTP 401 from ${new URL(f.url).host}`);
  });
});

/** A custom provider whose answer the test writes raw (status, body, or none at all). */
async function rawProvider() {
  let answer: (res: ServerResponse) => void = (res) => res.end('{"bytes": 1}');
  const http: Server = createHttpServer((_req, res) => answer(res));
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url,
    set(fn: typeof answer) {
      answer = fn;
    },
    close: () => {
      http.closeAllConnections();
      http.close();
    },
  };
}

describe('the custom contract', () => {
  it('a non-2xx, an answer over 64 KiB, a malformed body or no answer in 10 s is an error with its reason, never a zero', async () => {
    const raw = await rawProvider();
    try {
      const made = await createWith(admin, {
        ...base('Raw pool'),
        account: { provider: 'custom', balanceUrl: `${raw.url}/balance`, usageUrl: `${raw.url}/usage` },
      });
      const id = made.body.upstream.id;
      raw.set((res) => res.end(JSON.stringify({ bytes: '1234567890123456789' })));
      await check();
      expect((await listed(admin, id)).account).toMatchObject({ status: 'ok', balance: { bytes: '1234567890123456789' } });

      const failures: Array<[(res: ServerResponse) => void, string]> = [
        [(res) => res.writeHead(503).end('{"bytes": 0}'), `HTTP 503 from ${new URL(raw.url).host}`],
        [(res) => res.end(JSON.stringify({ bytes: 0, pad: 'x'.repeat(70_000) })), 'Answer larger than 64 KiB'],
        [(res) => res.end('not json'), 'Malformed answer: not JSON'],
        [(res) => res.end('{"bytes": -5}'), 'Malformed answer: bytes is not a whole number of bytes'],
        [(res) => res.end('{"bytes": 1.5}'), 'Malformed answer: bytes is not a whole number of bytes'],
        [(res) => res.end('{"left": 0}'), 'Malformed answer: bytes is not a whole number of bytes'],
        [(res) => res.end('[0]'), 'Malformed answer: expected { "bytes": N }'],
      ];
      for (const [answer, error] of failures) {
        raw.set(answer);
        await check();
        // The last good balance stays beside the error: nothing reads a failure as zero (dry).
        expect((await listed(admin, id)).account).toMatchObject({ status: 'error', error, balance: { bytes: '1234567890123456789' } });
      }
      raw.set(() => undefined);
      const started = Date.now();
      await check();
      expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
      expect((await listed(admin, id)).account).toMatchObject({ status: 'error', error: 'No answer within 10 s' });
      await admin.request('DELETE', `/admin/upstreams/${id}`);
    } finally {
      raw.close();
    }
  }, 30_000);
});

describe('the balance watch', () => {
  it('raises one alert per crossing into low or dry, resolved on return to ok; Telegram to owners and finance; gauges', async () => {
    // Admins of each role with a linked chat (the bot links them; here the rows stand for it).
    const chats: Record<string, number> = { owner: 7001, finance: 7002, support: 7003 };
    const [owner] = await server.database.db.select().from(adminUsers).limit(1);
    await server.database.db.insert(telegramChats).values({ chatId: chats.owner!, adminId: owner!.id });
    for (const role of ['finance', 'support'] as const) {
      const r = await admin.post<{ admin: { id: string } }>('/admin/admins', { username: `${role}-watch`, password: 'Role-Password-1', role });
      expect(r.status).toBe(201);
      await server.database.db.insert(telegramChats).values({ chatId: chats[role]!, adminId: r.body.admin.id });
    }

    const f = await fake('custom', 10n * GB);
    const made = await createWith(admin, { ...base('Watched pool'), account: f.account({ lowBalanceGB: 5 }) });
    const id = made.body.upstream.id;
    const alerts = async () =>
      (
        await admin.get<{ alerts: Array<{ id: string; kind: string; upstreamId: string; message: string; createdAt: string; resolvedAt: string | null }> }>(
          '/admin/alerts',
        )
      ).body.alerts.filter((a) => a.upstreamId === id);
    const statusOf = async () => (await listed(admin, id)).account!.status;

    await check();
    expect(await statusOf()).toBe('ok');
    expect(await alerts()).toEqual([]);

    f.balanceBytes = 4n * GB;
    await check();
    f.balanceBytes = 3n * GB;
    await check();
    expect(await statusOf()).toBe('low');
    expect(await alerts()).toEqual([
      {
        id: expect.any(String),
        kind: 'upstream_low',
        upstreamId: id,
        message: 'Upstream Watched pool is low: 4.00 GB left (threshold 5.00 GB).',
        createdAt: expect.any(String),
        resolvedAt: null,
      },
    ]);

    f.balanceBytes = 0n;
    await check();
    await check();
    expect(await statusOf()).toBe('dry');
    expect((await alerts()).map((a) => a.kind)).toEqual(['upstream_dry', 'upstream_low']);

    const metrics = await waitFor(async () => {
      const text = (await server.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
      return promSample(text, 'proxyhub_upstream_balance_bytes', { upstream: id }) === 0 && text;
    });
    expect(promSample(metrics, 'proxyhub_upstream_status', { upstream: id, status: 'dry' })).toBe(1);
    expect(promSample(metrics, 'proxyhub_upstream_status', { upstream: id, status: 'ok' })).toBe(0);

    f.balanceBytes = 20n * GB;
    await check();
    expect(await statusOf()).toBe('ok');
    const resolved = await alerts();
    expect(resolved).toHaveLength(2);
    for (const a of resolved) expect(a.resolvedAt).toEqual(expect.any(String));
    // A scrape shares one read of the accounts between both gauges (for 250 ms).
    const after = await waitFor(async () => {
      const text = (await server.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
      return promSample(text, 'proxyhub_upstream_balance_bytes', { upstream: id }) === Number(20n * GB) && text;
    });
    expect(promSample(after, 'proxyhub_upstream_status', { upstream: id, status: 'ok' })).toBe(1);

    // Two alerts, each to the owner's and the finance admin's chats; none to support.
    const sent = await server.database.db.select().from(telegramOutbox);
    const to = (chat: number) => sent.filter((m) => m.chatId === chat && m.text.includes('Watched pool')).map((m) => m.text);
    expect(to(chats.owner!)).toHaveLength(2);
    expect(to(chats.finance!)).toHaveLength(2);
    expect(to(chats.support!)).toHaveLength(0);
    expect(to(chats.owner!)[0]).toContain('ProxyHub alert: Upstream Watched pool is low');
    await admin.request('DELETE', `/admin/upstreams/${id}`);
  });

  it('two servers on one database: each account is read once per period', async () => {
    const a = await startTestServer({ backgroundJobs: true, upstreams: { allowPrivate: true, balanceMinutes: 0.02 } });
    // The second server shares the first's database (its close leaves it open for the first).
    const b = await createServer({ config: a.config, database: { ...a.database, close: async () => undefined }, logLevel: 'silent', backgroundJobs: true });
    try {
      const aAdmin = await adminClient(a);
      const watched = [await fake('custom'), await fake('custom')];
      for (const [i, f] of watched.entries()) expect((await createWith(aAdmin, { ...base(`Fleet pool ${i}`), account: f.account() })).status).toBe(201);
      const claimed = async () => (await a.database.db.select().from(jobClaims).where(eq(jobClaims.job, 'upstream-balances'))).length;
      // From a period in which both accounts exist and were read: calls and claims side by side.
      const start = await waitFor(async () => watched.every((f) => f.calls > 0) && { calls: watched.map((f) => f.calls), claims: await claimed() });
      await new Promise((r) => setTimeout(r, 6_000));
      const calls = watched.map((f, i) => f.calls - start.calls[i]!);
      const claims = (await claimed()) - start.claims;
      // 1.2 s periods over 6 s: each period claimed once, by one server or the other, and each
      // account read once per claimed period (a period's read may still be in flight at either end).
      expect(claims).toBeGreaterThanOrEqual(3);
      for (const n of calls) {
        expect(n).toBeLessThanOrEqual(claims + 1);
        expect(n).toBeGreaterThanOrEqual(claims - 1);
      }
      const rows = await a.database.db.select().from(jobClaims).where(eq(jobClaims.job, 'upstream-balances'));
      expect(new Set(rows.map((c) => c.period)).size).toBe(rows.length);
    } finally {
      await b.close();
      await a.close();
    }
  }, 40_000);
});
