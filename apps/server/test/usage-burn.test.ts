/**
 * GET /api/usage/burn: a user's billed bytes to categorized hosts (analytics, ads, fonts, ...) from
 * the connection log, priced at their own rate; the range (this month by default, a date alone as
 * `to` takes its whole day); bad dates a 400 naming the field. The records come through the
 * gateway's own report call, as a gateway sends them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, internalClient } from '@proxyhub/testing';
import { signedInUser, startTestServer, type TestServer } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const GIB = 1024 ** 3;
type Burn = {
  hosts: { host: string; category: string; bytes: string; costCents: number }[];
  totalBytes: string;
  blockableBytes: string;
  blockableCostCents: number;
  pricePerGbCents: number;
  from: string;
  to: string;
};

/** A user whose main account's log holds `records` (target, billed bytes, when), reported once. */
async function userWithLog(records: Array<[target: string, billed: number, at: number]>) {
  const { user, client } = await signedInUser(server);
  const gw = internalClient(server).gateway;
  const { account } = await gw.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
  if (!account.ok) throw new Error(account.message);
  const base = { proxyUserId: user.proxyUserId, proxyAccountId: account.proxyAccountId, country: 'US', state: '', city: '', session: 'rotating', reason: '' };
  await gw.report.mutate({
    gatewayId: `burn-${randomUUID().slice(0, 8)}`,
    seq: 1,
    items: [],
    connections: records.map(([target, billed, at]) => ({
      ...base,
      id: randomUUID(),
      startedAt: at,
      endedAt: at + 100,
      protocol: 'connect' as const,
      target,
      bytesUp: 0,
      bytesDown: billed,
      billedBytes: billed,
      outcome: billed ? ('ok' as const) : ('blocked' as const),
    })),
  });
  return { user, client };
}

describe('GET /api/usage/burn', () => {
  it("sums billed bytes per categorized host, priced at the caller's own rate; the rest counts in totalBytes only", async () => {
    const now = Date.now();
    const { user, client } = await userWithLog([
      ['www.google-analytics.com:443', GIB, now - 60_000],
      ['www.google-analytics.com:443', GIB / 2, now - 50_000],
      ['fonts.gstatic.com:443', GIB / 4, now - 40_000],
      ['securepubads.g.doubleclick.net:443', 1000, now - 30_000],
      ['shop.example:443', 3 * GIB, now - 20_000],
      ['[2001:db8::1]:443', 5000, now - 10_000],
      // Refused (blocked, billed 0): nothing to save there.
      ['hcaptcha.com:443', 0, now - 5_000],
    ]);
    const base = await client.get<Burn>('/api/usage/burn');
    expect(base.status).toBe(200);
    // The base price ($0.90/GB) without a rate of the user's own.
    expect(base.body.pricePerGbCents).toBe(90);
    expect(base.body.hosts).toEqual([
      { host: 'www.google-analytics.com', category: 'analytics', bytes: String(1.5 * GIB), costCents: 135 },
      { host: 'fonts.gstatic.com', category: 'fonts', bytes: String(GIB / 4), costCents: 23 },
      { host: 'securepubads.g.doubleclick.net', category: 'advertising', bytes: '1000', costCents: 0 },
    ]);
    expect(base.body.totalBytes).toBe(String(1.5 * GIB + GIB / 4 + 1000 + 3 * GIB + 5000));
    expect(base.body.blockableBytes).toBe(String(1.5 * GIB + GIB / 4 + 1000));
    expect(base.body.blockableCostCents).toBe(158);

    const admin = await adminClient(server);
    expect((await admin.request('PATCH', `/admin/users/${user.id}`, { pricePerGbCents: 200 })).status).toBe(200);
    const own = await client.get<Burn>('/api/usage/burn');
    expect(own.body.pricePerGbCents).toBe(200);
    expect(own.body.hosts.map((h) => h.costCents)).toEqual([300, 50, 0]);
    expect(own.body.blockableCostCents).toBe(350);
  });

  it('reads the range asked for (this month by default); a date alone as `to` is its whole day; bad dates are 400s naming the field', async () => {
    const now = Date.now();
    const threeDaysAgo = now - 3 * 86_400_000;
    const { client } = await userWithLog([
      ['cdn.segment.com:443', 2048, threeDaysAgo],
      ['i.ytimg.com:443', 4096, now - 60_000],
    ]);
    const day = new Date(threeDaysAgo).toISOString().slice(0, 10);
    const then = await client.get<Burn>(`/api/usage/burn?from=${day}&to=${day}`);
    expect(then.status).toBe(200);
    expect(then.body.hosts).toEqual([{ host: 'cdn.segment.com', category: 'analytics', bytes: '2048', costCents: 0 }]);
    expect(then.body.from).toBe(`${day}T00:00:00.000Z`);
    expect(then.body.to).toBe(new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString());
    // Default: from the start of this UTC month.
    const month = await client.get<Burn>('/api/usage/burn');
    const d = new Date(now);
    expect(month.body.from).toBe(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)).toISOString());
    expect(month.body.hosts.map((h) => [h.host, h.category])).toContainEqual(['i.ytimg.com', 'media_cdn']);

    const bad = await client.get<{ error: string }>('/api/usage/burn?from=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('From must be an ISO 8601 date or time');
    expect((await client.get<{ error: string }>('/api/usage/burn?to=2026-13-01')).body.error).toBe('To must be an ISO 8601 date or time');
    const backwards = await client.get<{ error: string }>('/api/usage/burn?from=2026-02-01&to=2026-01-01');
    expect(backwards.status).toBe(400);
    expect(backwards.body.error).toBe('From must not be after To');
    expect((await server.client().get('/api/usage/burn')).status).toBe(401);
  });
});
