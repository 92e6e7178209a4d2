/**
 * The abuse look-up: GET /admin/abuse finds the connections a gateway reported that hit a host (or
 * its subdomains) or left through an exit IP, in a time range, with the customer's email; "Suspend
 * with reason" suspends and mails the reason to the customer.
 */
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConnectionRecord } from '@proxyhub/core';
import { proxyAccounts } from '@proxyhub/db';
import { adminClient, internalClient } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
let admin: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
});
afterAll(() => server.close());

type Found = { id: string; userId: string; email: string; proxyAccountId: string; target: string; exitIp: string; startedAt: string; bytesDown: string };

const HOUR = 3_600_000;
let seq = 1;

/** Reports connections the way a gateway does (its usage report), for a user's main proxy account. */
async function report(proxyAccountId: string, conns: Array<{ target: string; exitIp: string; at: number }>): Promise<string[]> {
  const records: GatewayConnectionRecord[] = conns.map((c) => ({
    id: randomUUID(),
    startedAt: c.at,
    endedAt: c.at + 1000,
    protocol: 'connect',
    target: c.target,
    proxyUserId: 'abuse',
    proxyAccountId,
    country: '',
    state: '',
    city: '',
    session: 'rotating',
    bytesUp: 10,
    bytesDown: 2000,
    billedBytes: 2010,
    outcome: 'ok',
    reason: '',
    exitIp: c.exitIp,
  }));
  await internalClient(server).gateway.report.mutate({ gatewayId: 'gw-abuse', seq: seq++, items: [], connections: records });
  return records.map((r) => r.id);
}

async function customer() {
  const u = await signedInUser(server);
  const [acc] = await server.deps.db.select({ id: proxyAccounts.id }).from(proxyAccounts).where(eq(proxyAccounts.userId, u.user.id));
  return { ...u, accountId: acc!.id };
}

const lookup = (query: string) => admin.get<{ success: boolean; connections: Found[]; error?: string }>(`/admin/abuse?${query}`);

describe('abuse look-up', () => {
  it('finds connections by target (and subdomains), time range and exit IP, with the email', async () => {
    const a = await customer();
    const b = await customer();
    const now = Date.now();
    const [hit, sub] = await report(a.accountId, [
      { target: 'bank.example:443', exitIp: '203.0.113.7', at: now - 2 * HOUR },
      { target: 'www.bank.example:443', exitIp: '203.0.113.7', at: now - HOUR },
      { target: 'notbank.example:443', exitIp: '203.0.113.7', at: now - HOUR },
    ]);
    const [other] = await report(b.accountId, [{ target: 'bank.example:80', exitIp: '203.0.113.9', at: now - 30 * 60_000 }]);

    const all = await lookup('target=Bank.Example');
    expect(all.status).toBe(200);
    expect(all.body.connections.map((c) => c.id)).toEqual([other, sub, hit]);
    expect(all.body.connections[2]).toMatchObject({
      userId: a.user.id,
      email: a.email,
      proxyAccountId: a.accountId,
      target: 'bank.example:443',
      exitIp: '203.0.113.7',
      bytesDown: '2000',
    });

    const byExit = await lookup('target=bank.example&exitIp=203.0.113.9');
    expect(byExit.body.connections.map((c) => [c.id, c.email])).toEqual([[other, b.email]]);
    const onlyExit = await lookup('exitIp=203.0.113.7');
    expect(onlyExit.body.connections).toHaveLength(3);

    const window = `from=${new Date(now - 90 * 60_000).toISOString()}&to=${new Date(now - 45 * 60_000).toISOString()}`;
    expect((await lookup(`target=bank.example&${window}`)).body.connections.map((c) => c.id)).toEqual([sub]);

    expect(await lookup('from=2026-01-01T00:00:00Z')).toMatchObject({ status: 400, body: { error: 'Give a target or an exit IP' } });
    expect((await lookup('target=https://bank.example/')).status).toBe(400);
  });

  it('suspend with reason: the account stops and the customer gets the reason by mail', async () => {
    const c = await customer();
    const reason = 'Credential stuffing against bank.example reported on 26 Nov';
    const r = await admin.post<{ success: boolean }>(`/admin/users/${c.user.id}/suspend`, { reason, notifyCustomer: true });
    expect(r.status).toBe(200);
    await server.settle();
    const mail = server.mails(c.email).at(-1)!;
    expect(mail.subject).toBe('Your ProxyHub account is suspended');
    expect(mail.text).toContain(`Reason: ${reason}`);
    expect((await c.client.get('/auth/user')).status).toBe(401);
    // Without notifyCustomer (the user detail's Suspend), no mail.
    const quiet = await customer();
    const before = server.mails(quiet.email).length;
    await admin.post(`/admin/users/${quiet.user.id}/suspend`, { reason: 'quiet' });
    await server.settle();
    expect(server.mails(quiet.email)).toHaveLength(before);
  });
});
