/**
 * GET /api/usage: the user's traffic by hour and by day with totals, by country and by proxy
 * account, from what gateways reported with each connection's location and protocol.
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { proxyAccounts, usageDaily, usageHourly } from '@proxyhub/db';
import type { GatewayReportInput } from '@proxyhub/core';
import { addCredits, expectLedgerOk, internalClient } from '@proxyhub/testing';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';
import { describeError } from '@proxyhub/core/i18n';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

const GB = 1073741824n;

type Usage = {
  granularity: string;
  from: string;
  to: string;
  points: { start: string; bytesUp: string; bytesDown: string; sessions: number }[];
  totals: { bytesUp: string; bytesDown: string; sessions: number };
  byCountry: { country: string | null; bytes: string; okRate: number | null; p50ConnectMs: number | null }[];
  byAccount: { proxyUserId: string; name: string; bytes: string }[];
  byTarget: { host: string; bytes: string; connections: number; okRate: number | null; p50ConnectMs: number | null }[];
};
/** A country's or host's figures when the connection log holds none of its connections. */
const unrecorded = { okRate: null, p50ConnectMs: null };

let seq = 0;
/** One gateway report for the user's main account: the given parts, plus `unattributed` bytes down without a part. */
async function report(
  user: { proxyUserId: string; proxyPassword: string },
  parts: { protocol: 'http' | 'connect' | 'socks5'; country: string; state?: string; city?: string; up: number; down: number; sessions: number }[],
  unattributed = 0,
  log: Pick<GatewayReportInput, 'logSessions' | 'logRows'> | ((proxyAccountId: string) => Pick<GatewayReportInput, 'logSessions' | 'logRows'>) = {},
) {
  const gateway = internalClient(server).gateway;
  const { account } = await gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
  if (!account.ok) throw new Error(account.message);
  const gatewayId = `usage-gw-${user.proxyUserId}`;
  const lease = await gateway.reserveLease.mutate({ gatewayId, proxyAccountId: account.proxyAccountId, bytes: 10_000_000 });
  const up = parts.reduce((s, p) => s + p.up, 0);
  const down = parts.reduce((s, p) => s + p.down, 0) + unattributed;
  const sessions = parts.reduce((s, p) => s + p.sessions, 0);
  seq += 1;
  const r = await gateway.report.mutate({
    gatewayId,
    seq,
    items: [
      {
        leaseId: lease.leaseId!,
        bytesUp: up,
        bytesDown: down,
        sessions,
        release: true,
        parts: parts.map((p) => ({
          protocol: p.protocol,
          country: p.country,
          state: p.state ?? '',
          city: p.city ?? '',
          bytesUp: p.up,
          bytesDown: p.down,
          sessions: p.sessions,
        })),
      },
    ],
    ...(typeof log === 'function' ? log(account.proxyAccountId) : log),
  });
  expect(r.applied).toBe(true);
  return account.proxyAccountId;
}

async function usage(client: HttpClient, query = '') {
  const r = await client.get<Usage>(`/api/usage${query}`);
  expect(r.status).toBe(200);
  return r.body;
}

describe('GET /api/usage', () => {
  it('shows reported traffic in the current hour and day, by country and by account, with exact bytes', async () => {
    const { client, user } = await signedInUser(server);
    await addCredits(server, user.id, GB);
    const accountId = await report(user, [
      { protocol: 'connect', country: 'US', state: 'CALIFORNIA', city: 'LOSANGELES', up: 1000, down: 5000, sessions: 1 },
      { protocol: 'socks5', country: 'DE', up: 10, down: 20_000, sessions: 2 },
      { protocol: 'http', country: 'US', up: 500, down: 1500, sessions: 1 },
    ]);

    // The rows keep where and how.
    const hourly = await server.deps.db.select().from(usageHourly).where(eq(usageHourly.proxyAccountId, accountId));
    expect(hourly.map((h) => [h.protocol, h.country, h.state, h.city, h.bytesUp, h.bytesDown, h.sessions]).sort()).toEqual(
      [
        ['connect', 'US', 'CALIFORNIA', 'LOSANGELES', 1000n, 5000n, 1],
        ['http', 'US', '', '', 500n, 1500n, 1],
        ['socks5', 'DE', '', '', 10n, 20_000n, 2],
      ].sort(),
    );
    const daily = await server.deps.db.select().from(usageDaily).where(eq(usageDaily.proxyAccountId, accountId));
    expect(daily.reduce((s, d) => s + d.bytesUp + d.bytesDown, 0n)).toBe(28_010n);

    const hours = await usage(client);
    expect(hours.granularity).toBe('hour');
    expect(hours.points).toHaveLength(24);
    const nowHour = new Date(Date.now() - (Date.now() % 3_600_000)).toISOString();
    expect(hours.to).toBe(nowHour);
    expect(hours.points.at(-1)).toEqual({ start: nowHour, bytesUp: '1510', bytesDown: '26500', sessions: 4 });
    expect(hours.points.slice(0, -1).every((p) => p.bytesUp === '0' && p.bytesDown === '0' && p.sessions === 0)).toBe(true);
    expect(hours.totals).toEqual({ bytesUp: '1510', bytesDown: '26500', sessions: 4 });
    expect(hours.byCountry).toEqual([
      { country: 'DE', bytes: '20010', ...unrecorded },
      { country: 'US', bytes: '8000', ...unrecorded },
    ]);
    const [main] = await server.deps.db.select().from(proxyAccounts).where(eq(proxyAccounts.id, accountId));
    expect(hours.byAccount).toEqual([{ proxyUserId: main!.proxyUserId, name: 'Main', bytes: '28010' }]);

    const days = await usage(client, '?granularity=day');
    expect(days.points).toHaveLength(30);
    expect(days.points.at(-1)).toMatchObject({
      start: `${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`,
      bytesUp: '1510',
      bytesDown: '26500',
      sessions: 4,
    });
    expect(days.totals).toEqual(hours.totals);
    expect(days.byCountry).toEqual(hours.byCountry);
  });

  it("gives each target's and country's success rate and median connect time from the connection log", async () => {
    const { client, user } = await signedInUser(server);
    await addCredits(server, user.id, GB);
    const at = Date.now() - 1000;
    await report(
      user,
      [
        { protocol: 'connect', country: 'US', up: 300, down: 3000, sessions: 3 },
        { protocol: 'socks5', country: 'DE', up: 10, down: 90, sessions: 1 },
      ],
      0,
      (proxyAccountId) => ({
        logSessions: [
          [1, user.proxyUserId, proxyAccountId, 'US', '', '', 'rotating', 0],
          [2, user.proxyUserId, proxyAccountId, 'DE', '', '', 'rotating', 0],
        ],
        // [startedAt, durationMs, protocol, target, sessionKey, bytesUp, bytesDown, outcome, reason, exitIp, upstreamId, seq, connectMs]
        logRows: [
          [at, 50, 'connect', 'shop.example:443', 1, 100, 1500, 'ok', '', '', '', 1, 40],
          [at, 50, 'connect', 'shop.example:443', 1, 200, 1500, 'ok', '', '', '', 2, 61],
          [at, 0, 'connect', 'shop.example:443', 1, 0, 0, 'target_unreachable', 'connection refused', '', '', 3, null],
          [at, 20, 'socks5', 'api.example:443', 2, 10, 90, 'ok', '', '', '', 4, 15],
        ],
      }),
    );
    const r = await usage(client);
    // 2 of shop.example's 3 connections ended ok; the median of its two connect times, 40 and 61, is 50.5: 51.
    expect(r.byTarget).toEqual([
      { host: 'shop.example', bytes: '3300', connections: 3, okRate: 0.6667, p50ConnectMs: 51 },
      { host: 'api.example', bytes: '100', connections: 1, okRate: 1, p50ConnectMs: 15 },
    ]);
    expect(r.byCountry).toEqual([
      { country: 'US', bytes: '3300', okRate: 0.6667, p50ConnectMs: 51 },
      { country: 'DE', bytes: '100', okRate: 1, p50ConnectMs: 15 },
    ]);
    // The same over days.
    const days = await usage(client, '?granularity=day');
    expect(days.byTarget).toEqual(r.byTarget);
    expect(days.byCountry).toEqual(r.byCountry);
  });

  it('runs from the bucket holding from to the bucket holding to, zeros included; parts that do not add up are unknown', async () => {
    const { client, user } = await signedInUser(server);
    await addCredits(server, user.id, GB);
    await report(user, [{ protocol: 'socks5', country: 'FR', up: 100, down: 900, sessions: 1 }], 4000);
    const today = new Date().toISOString().slice(0, 10);
    const r = await usage(client, `?granularity=hour&from=${today}T00:30:00Z&to=${today}T23:59:59Z`);
    expect(r.from).toBe(`${today}T00:00:00.000Z`);
    expect(r.to).toBe(`${today}T23:00:00.000Z`);
    expect(r.points).toHaveLength(24);
    expect(r.totals).toEqual({ bytesUp: '100', bytesDown: '4900', sessions: 1 });
    expect(r.byCountry).toEqual([
      { country: null, bytes: '4000', ...unrecorded },
      { country: 'FR', bytes: '1000', ...unrecorded },
    ]);
    // A range in the future: all zeros. An offset and a date alone are read as written.
    const future = await usage(client, '?granularity=day&from=2100-01-01&to=2100-01-03T10:00:00%2B02:00');
    expect(future.points.map((p) => p.start)).toEqual(['2100-01-01T00:00:00.000Z', '2100-01-02T00:00:00.000Z', '2100-01-03T00:00:00.000Z']);
    expect(future.totals).toEqual({ bytesUp: '0', bytesDown: '0', sessions: 0 });
    expect(future.byCountry).toEqual([]);
  });

  it('refuses ranges beyond 31 days of hours or 366 days of days and bad input with a 400 and a message', async () => {
    const { client } = await signedInUser(server);
    expect((await client.get<Usage>('/api/usage?granularity=hour&from=2026-01-01T00:00:00Z&to=2026-01-31T23:00:00Z')).body.points).toHaveLength(744);
    expect((await client.get<Usage>('/api/usage?granularity=day&from=2024-01-01&to=2024-12-31')).body.points).toHaveLength(366);
    for (const [q, error] of [
      [
        'granularity=hour&from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z',
        'At most 31 days of hourly usage per call: ask for a shorter range or granularity=day',
      ],
      ['granularity=day&from=2024-01-01&to=2025-01-01', 'At most 366 days of daily usage per call: ask for a shorter range'],
      ['from=2026-02-01&to=2026-01-01', 'The start must not be after the end'],
      ['from=yesterday', 'From must be an ISO 8601 date or time'],
      ['to=2026-13-45', 'To must be an ISO 8601 date or time'],
      ['granularity=week', 'Granularity must be hour or day'],
      ['format=xml', 'Format must be json or csv'],
    ] as const) {
      const r = await client.get<{ success: boolean; error: string }>(`/api/usage?${q}`);
      expect({ q, status: r.status, body: r.body }).toEqual({ q, status: 400, body: { success: false, error, code: describeError(error)!.code } });
    }
  });

  it('answers CSV; the API key sees the same; another user sees none of it', async () => {
    const { client, user } = await signedInUser(server);
    await addCredits(server, user.id, GB);
    await report(user, [{ protocol: 'http', country: 'GB', up: 7, down: 70, sessions: 1 }]);
    const csv = await client.get<string>('/api/usage?format=csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = csv.body.trim().split('\n');
    expect(lines[0]).toBe('start,bytesUp,bytesDown,sessions,gb (GB = 1073741824 bytes)');
    expect(lines).toHaveLength(25);
    expect(lines.at(-1)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z,7,70,1,0\.00$/);

    const bearer = server.client({ origin: null });
    bearer.bearer = user.apiKey;
    expect((await usage(bearer)).totals).toEqual({ bytesUp: '7', bytesDown: '70', sessions: 1 });
    const other = await signedInUser(server);
    expect((await usage(other.client)).totals).toEqual({ bytesUp: '0', bytesDown: '0', sessions: 0 });
    expect((await server.client().get('/api/usage')).status).toBe(401);
  });
});
