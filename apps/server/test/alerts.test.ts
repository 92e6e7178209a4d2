/**
 * Low-balance alerts: PUT/GET /api/alerts, and mail when Remaining Data falls below the threshold
 * and when it reaches zero, exactly once per crossing however many gateways report at once; a
 * top-up re-arms them.
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BYTES_PER_GB } from '@proxyhub/core';
import { users } from '@proxyhub/db';
import { adminClient, expectLedgerOk, internalClient } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
let admin: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

const GATEWAYS = 8;
const LEASE = BYTES_PER_GB / BigInt(GATEWAYS);

async function topUp(client: HttpClient, gb: number) {
  const minted = await admin.post<{ codes: { code: string }[] }>('/admin/codes/create', { creditsGB: gb, quantity: 1, expiresAt: null });
  expect(minted.status).toBe(200);
  const r = await client.post('/auth/redeem-code', { code: minted.body.codes[0]!.code });
  expect(r.status).toBe(200);
}

describe('/api/alerts', () => {
  it('reads and sets the threshold (cookie and Bearer); refuses bad amounts with 400', async () => {
    const { client, user } = await signedInUser(server);
    expect((await client.get('/api/alerts')).body).toEqual({ lowBalanceGB: null, usageAlertPercents: [80, 90] });
    const set = await client.request('PUT', '/api/alerts', { lowBalanceGB: 0.01 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ lowBalanceGB: 0.01, usageAlertPercents: [80, 90] });
    expect((await client.get('/api/alerts')).body).toEqual({ lowBalanceGB: 0.01, usageAlertPercents: [80, 90] });

    const bearer = server.client({ origin: null });
    bearer.bearer = user.apiKey;
    expect((await bearer.request('PUT', '/api/alerts', { lowBalanceGB: 2.5 })).status).toBe(200);
    expect((await bearer.get('/api/alerts')).body).toEqual({ lowBalanceGB: 2.5, usageAlertPercents: [80, 90] });
    expect((await bearer.request('PUT', '/api/alerts', { lowBalanceGB: null })).body).toEqual({ lowBalanceGB: null, usageAlertPercents: [80, 90] });

    for (const bad of [0, -1, 0.001, 'x']) {
      const r = await client.request<{ success: boolean; error: string }>('PUT', '/api/alerts', { lowBalanceGB: bad });
      expect({ bad, status: r.status }).toEqual({ bad, status: 400 });
      expect(r.body.error).toMatch(/Low balance threshold/);
    }
    expect((await server.client().get('/api/alerts')).status).toBe(401);
  });

  it('one Low balance mail and one Out of data mail per crossing with concurrent gateway reports; a top-up re-arms', async () => {
    const { client, email, user } = await signedInUser(server);
    await topUp(client, 1);
    expect((await client.request('PUT', '/api/alerts', { lowBalanceGB: 0.5 })).status).toBe(200);
    const gateway = internalClient(server).gateway;
    const { account } = await gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
    if (!account.ok) throw new Error(account.message);
    let seq = 0;
    const mails = async (prefix: string) => {
      await server.settle();
      return server.mails(email).filter((m) => m.subject.startsWith(prefix)).length;
    };

    const crossDown = async (tag: string) => {
      const leases = await Promise.all(
        Array.from({ length: GATEWAYS }, (_, i) =>
          gateway.reserveLease.mutate({ gatewayId: `gw-${tag}-${i}`, proxyAccountId: account.proxyAccountId, bytes: Number(LEASE) }),
        ),
      );
      for (const l of leases) expect(l.grantedBytes).toBe(LEASE);
      // Three quarters of every lease at once: remaining falls from 1 GB to 0.25 GB.
      seq += 1;
      await Promise.all(
        leases.map((l, i) =>
          gateway.report.mutate({
            gatewayId: `gw-${tag}-${i}`,
            seq,
            items: [{ leaseId: l.leaseId!, bytesUp: 0, bytesDown: Number((LEASE * 3n) / 4n), sessions: 1, release: false }],
          }),
        ),
      );
      return leases;
    };

    const first = await crossDown('a');
    expect(await mails('Low balance')).toBe(1);
    expect(await mails('Out of data')).toBe(0);
    // The rest of every lease, concurrently: remaining reaches zero.
    seq += 1;
    await Promise.all(
      first.map((l, i) =>
        gateway.report.mutate({
          gatewayId: `gw-a-${i}`,
          seq,
          items: [{ leaseId: l.leaseId!, bytesUp: Number(LEASE / 4n), bytesDown: 0, sessions: 1, release: true }],
        }),
      ),
    );
    expect(await mails('Low balance')).toBe(1);
    expect(await mails('Out of data')).toBe(1);

    // A top-up above the threshold re-arms both; the next crossing mails again.
    await topUp(client, 1);
    expect(await mails('Low balance')).toBe(1);
    const second = await crossDown('b');
    expect(await mails('Low balance')).toBe(2);
    expect(await mails('Out of data')).toBe(1);
    await gateway.releaseLeases.mutate({ gatewayId: 'gw-b-0' });
    for (let i = 1; i < second.length; i++) await gateway.releaseLeases.mutate({ gatewayId: `gw-b-${i}` });
  });

  it('a crypto payment re-arms the alert as soon as it is credited; the next fall mails again', async () => {
    const { client, email, user } = await signedInUser(server);
    const state = async () => {
      await server.settle();
      const [row] = await server.deps.db.select({ s: users.balanceAlertState }).from(users).where(eq(users.id, user.id));
      return row!.s;
    };
    // No data and a threshold: the save's check reports Out of data once.
    expect((await client.request('PUT', '/api/alerts', { lowBalanceGB: 5 })).status).toBe(200);
    expect(await state()).toBe('out');
    expect(server.mails(email).filter((m) => m.subject.startsWith('Out of data'))).toHaveLength(1);

    const created = await client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 });
    expect(created.status).toBe(200);
    const paid = await client.request('POST', new URL(created.body.invoiceUrl).pathname, 'outcome=finished', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(paid.status).toBe(303);
    // Re-armed by the payment itself, not by the 10 s sweep; no mail for a rise.
    expect(await state()).toBe('armed');
    expect(server.mails(email).filter((m) => /^(Low balance|Out of data)/.test(m.subject))).toHaveLength(1);
  });
});
