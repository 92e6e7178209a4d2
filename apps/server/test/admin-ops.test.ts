/**
 * Admin operations over HTTP: codes (states, redeemer, revoke), payments (filters), several admins
 * (add, disable, never the last), the 30-day global view; refusals for users, keys and strangers.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_SIGNATURE_HEADER, signSandboxNotification } from '@proxyhub/api';
import { ADMIN_PASSWORD, ADMIN_USERNAME, adminClient, expectLedgerOk, internalClient } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
let admin: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

type Code = { code: string; status: string; redeemedBy: { id: string; email: string } | null; redeemedAt: string | null; revokedAt: string | null };
type Codes = { codes: Code[]; total: number };

async function mint(gb: number, quantity = 1, expiresAt: string | null = null): Promise<string[]> {
  const r = await admin.post<{ codes: { code: string }[] }>('/admin/codes/create', { creditsGB: gb, quantity, expiresAt });
  expect(r.status).toBe(200);
  return r.body.codes.map((c) => c.code);
}

describe('codes', () => {
  it('lists codes by state with who redeemed them; revokes an unused one, which then redeems as unknown', async () => {
    const [used, unused, revokable] = await mint(0.5, 3);
    const { client, email, user } = await signedInUser(server);
    expect((await client.post('/auth/redeem-code', { code: used })).status).toBe(200);

    const redeemed = await admin.get<Codes>(`/admin/codes?status=redeemed&q=${encodeURIComponent(email)}`);
    expect(redeemed.status).toBe(200);
    expect(redeemed.body.codes).toEqual([expect.objectContaining({ code: used, status: 'redeemed', redeemedBy: { id: user.id, email } })]);
    const byCode = await admin.get<Codes>(`/admin/codes?q=${unused!.slice(3, 10).toLowerCase()}`);
    expect(byCode.body.codes.map((c) => [c.code, c.status])).toEqual([[unused, 'unused']]);

    const revoked = await admin.post<{ success: boolean; code: string }>(`/admin/codes/${revokable}/revoke`, {});
    expect(revoked.body).toMatchObject({ success: true, code: revokable });
    expect((await admin.get<Codes>(`/admin/codes?status=revoked`)).body.codes.map((c) => c.code)).toContain(revokable);
    const redeem = await client.post<{ error: string }>('/auth/redeem-code', { code: revokable });
    expect(redeem).toMatchObject({ status: 404, body: { error: 'Invalid code. Please check the code and try again.' } });

    const again = await admin.post<{ error: string }>(`/admin/codes/${revokable}/revoke`, {});
    expect(again).toMatchObject({ status: 409, body: { error: 'This code is already revoked' } });
    expect((await admin.post<{ error: string }>(`/admin/codes/${used}/revoke`, {})).body.error).toBe(
      'This code has already been redeemed and cannot be revoked',
    );
    expect((await admin.post(`/admin/codes/NOPE0000/revoke`, {})).status).toBe(404);
    const audit = await admin.get<{ entries: { action: string; target: string }[] }>(`/admin/audit-log?action=admin.revokeCode`);
    expect(audit.body.entries.map((e) => e.target)).toContain(`code:${revokable}`);
    expect((await admin.get<{ error: string }>('/admin/codes?status=lost')).body.error).toBe('Status must be unused, redeemed, expired or revoked');
  });

  it('expired codes are listed as expired and cannot be revoked', async () => {
    const [code] = await mint(0.1, 1, new Date(Date.now() + 1500).toISOString());
    await new Promise((r) => setTimeout(r, 1700));
    const list = await admin.get<Codes>(`/admin/codes?status=expired&q=${code}`);
    expect(list.body.codes.map((c) => [c.code, c.status])).toEqual([[code, 'expired']]);
    expect((await admin.post<{ error: string }>(`/admin/codes/${code}/revoke`, {})).body.error).toBe('This code has expired; there is nothing to revoke');
  });
});

describe('payments', () => {
  it('keeps the answer without parameters and filters by status and by user email or order id', async () => {
    const { client, email } = await signedInUser(server);
    const order = async () =>
      (await client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 })).body.invoiceUrl.split('/').at(-1)!;
    const paid = await order();
    const waiting = await order();
    const body = { order_id: paid, payment_id: 'p1', payment_status: 'finished' as const, price_amount: 10.8, price_currency: 'usd' as const };
    await server
      .client({ origin: null })
      .post('/webhooks/sandbox', body, { [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(server.config.appSecret, body) });

    const all = await admin.get<{ success: boolean; payments: { id: string }[]; total: number }>('/admin/payments');
    expect(all.body.success).toBe(true);
    expect(all.body.total).toBeGreaterThanOrEqual(2);
    type Payments = { payments: { id: string; status: string; userEmail: string; priceCents: number; events: { status: string }[] }[]; total: number };
    const finished = await admin.get<Payments>(`/admin/payments?status=finished&q=${encodeURIComponent(email)}`);
    expect(finished.body.payments.map((p) => [p.id, p.status, p.userEmail, p.priceCents])).toEqual([[paid, 'finished', email, 1080]]);
    expect(finished.body.payments[0]!.events.map((e) => e.status)).toEqual(['waiting', 'finished']);
    const byId = await admin.get<Payments>(`/admin/payments?q=${waiting}`);
    expect(byId.body.payments.map((p) => [p.id, p.status])).toEqual([[waiting, 'waiting']]);
    expect((await admin.get<{ error: string }>('/admin/payments?status=paid')).status).toBe(400);
  });
});

describe('several admins', () => {
  it('adds an admin who can sign in; disabling ends their session and sign-in; the last active admin stays', async () => {
    const username = `ops${Date.now().toString(36)}`;
    const created = await admin.post<{ success: boolean; admin: { id: string; username: string } }>('/admin/admins', {
      username,
      password: 'Second-Admin-1',
      role: 'owner',
    });
    expect(created).toMatchObject({ status: 201, body: { success: true, admin: { username } } });
    expect((await admin.post<{ error: string }>('/admin/admins', { username, password: 'Second-Admin-1' })).body.error).toBe(
      'An admin with this username already exists',
    );
    expect((await admin.post<{ error: string }>('/admin/admins', { username: 'x y', password: 'short' })).body.error).toBe(
      'Username may use letters, digits, dots, dashes and underscores',
    );

    const second = server.client();
    expect((await second.post('/auth/admin/login', { username, password: 'Second-Admin-1' })).status).toBe(200);
    expect((await second.get('/admin/admins')).status).toBe(200);
    const list = await second.get<{ admins: { id: string; username: string; disabledAt: string | null }[] }>('/admin/admins');
    const first = list.body.admins.find((a) => a.username === ADMIN_USERNAME)!;

    expect((await admin.post(`/admin/admins/${created.body.admin.id}/disable`, {})).status).toBe(200);
    expect((await second.get('/admin/admins')).status).toBe(401);
    const relogin = await server.client().post<{ error: string }>('/auth/admin/login', { username, password: 'Second-Admin-1' });
    expect(relogin).toMatchObject({ status: 403, body: { error: 'This admin account has been disabled' } });

    // Only the first admin is active now: it cannot disable itself.
    const last = await admin.post<{ error: string }>(`/admin/admins/${first.id}/disable`, {});
    expect(last).toMatchObject({ status: 409, body: { error: 'The last active admin cannot be disabled' } });
    expect((await server.client().post('/auth/admin/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD })).status).toBe(200);
    const audit = await admin.get<{ entries: { action: string; changes: { input: Record<string, unknown> } }[] }>('/admin/audit-log?action=admin.createAdmin');
    expect(audit.body.entries[0]!.changes.input).toEqual({ username, password: '[redacted]', role: 'owner' });
  });
});

describe('global view', () => {
  it('30 days of traffic by day and country, and revenue by day from paid orders and redeemed codes', async () => {
    const { client, user } = await signedInUser(server);
    const [code] = await mint(2);
    await client.post('/auth/redeem-code', { code });
    const gw = internalClient(server).gateway;
    const { account } = await gw.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
    if (!account.ok) throw new Error(account.message);
    const lease = await gw.reserveLease.mutate({ gatewayId: 'gw-overview', proxyAccountId: account.proxyAccountId, bytes: 1_000_000 });
    await gw.report.mutate({
      gatewayId: 'gw-overview',
      seq: 1,
      items: [
        {
          leaseId: lease.leaseId!,
          bytesUp: 0,
          bytesDown: 123_456,
          sessions: 1,
          release: true,
          parts: [{ protocol: 'socks5', country: 'JP', state: '', city: '', bytesUp: 0, bytesDown: 123_456, sessions: 1 }],
        },
      ],
    });
    type Overview = {
      days: { day: string; bytes: string; codeCents: number; cryptoCents: number; planCents: number; revenueCents: number }[];
      byCountry: { country: string | null; bytes: string }[];
    };
    const r = await admin.get<Overview>('/admin/usage/history');
    expect(r.status).toBe(200);
    expect(r.body.days).toHaveLength(30);
    const today = r.body.days.at(-1)!;
    expect(today.day).toBe(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
    expect(BigInt(today.bytes)).toBeGreaterThanOrEqual(123_456n);
    expect(today.codeCents).toBeGreaterThanOrEqual(180); // 2 GB at $0.90
    expect(today.revenueCents).toBe(today.codeCents + today.cryptoCents + today.planCents);
    expect(r.body.byCountry).toContainEqual({ country: 'JP', bytes: '123456' });
  });
});

describe('refusals', () => {
  it('every new admin path refuses a user session and a user API key (403) and anonymous callers (401)', async () => {
    const { client, user } = await signedInUser(server);
    const key = server.client({ origin: null });
    key.bearer = user.apiKey;
    const calls: [string, string, unknown][] = [
      ['GET', '/admin/codes', undefined],
      ['POST', '/admin/codes/ABC/revoke', {}],
      ['GET', '/admin/payments?status=finished', undefined],
      ['GET', '/admin/admins', undefined],
      ['POST', '/admin/admins', { username: 'evil', password: 'Evil-Admin-1' }],
      ['POST', '/admin/admins/00000000-0000-4000-8000-000000000000/disable', {}],
      ['GET', '/admin/usage/history', undefined],
    ];
    for (const [method, path, body] of calls) {
      for (const [who, c, status] of [
        ['user', client, 403],
        ['api key', key, 403],
        ['anonymous', server.client(), 401],
      ] as const) {
        const r = await c.request(method, path, body);
        expect({ who, path, status: r.status }).toEqual({ who, path, status });
      }
    }
  });
});
