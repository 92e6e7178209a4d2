/**
 * The IP allow-list over HTTP: GET/PUT /api/ip-allowlist with a cookie or a Bearer API key,
 * validation (each bad entry named, at most 50), normalisation, the address the server sees, and
 * password-less claims: one address for one user only, even when two users claim it at once.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ipAllowlistEntries } from '@proxyhub/db';
import { internalClient, signedInUser, startTestServer, type TestServer } from './helpers';

let server: TestServer;
let proxied: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  proxied = await startTestServer({ trustProxy: true });
});
afterAll(async () => {
  await server?.close();
  await proxied?.close();
});

type Answer = { entries: string[]; passwordless: boolean; currentAddress?: string; error?: string };
const put = (client: Awaited<ReturnType<typeof signedInUser>>['client'], body: unknown) => client.request<Answer>('PUT', '/api/ip-allowlist', body);

describe('/api/ip-allowlist', () => {
  it('reads and replaces the list with a cookie or a Bearer key, normalised; anonymous is 401', async () => {
    const { client, user } = await signedInUser(server);
    expect((await client.get<Answer>('/api/ip-allowlist')).body).toEqual({
      entries: [],
      passwordless: false,
      currentAddress: '127.0.0.1',
      entryPorts: { from: 20000, to: 20099 },
    });

    const set = await put(client, { entries: [' 203.0.113.7 ', '10.1.2.3/24', '2001:DB8:0::1', '2001:db8:aa::/48', '::ffff:198.51.100.1', '10.1.2.0/24'] });
    expect(set.status).toBe(200);
    const normalised = ['203.0.113.7', '10.1.2.0/24', '2001:db8::1', '2001:db8:aa::/48', '198.51.100.1'];
    expect(set.body).toEqual({ entries: normalised, passwordless: false, notes: ['10.1.2.3/24 was saved as 10.1.2.0/24'] });
    expect((await client.get<Answer>('/api/ip-allowlist')).body).toMatchObject({ entries: normalised, passwordless: false });

    const bearer = server.client({ origin: null });
    bearer.bearer = user.apiKey;
    expect((await bearer.get<Answer>('/api/ip-allowlist')).body).toMatchObject({ entries: normalised });
    const cleared = await put(bearer, { entries: [] });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ entries: [], passwordless: false, notes: [] });
    const rows = await server.database.db.select().from(ipAllowlistEntries).where(eq(ipAllowlistEntries.userId, user.id));
    expect(rows).toEqual([]);

    const anonymous = server.client();
    expect((await anonymous.get('/api/ip-allowlist')).status).toBe(401);
    expect((await anonymous.request('PUT', '/api/ip-allowlist', { entries: ['1.2.3.4'] })).status).toBe(401);
  });

  it('refuses a bad entry with 400 naming it, more than 50 entries, and writes nothing', async () => {
    const { client } = await signedInUser(server);
    expect((await put(client, { entries: ['192.0.2.1'] })).status).toBe(200);
    for (const bad of ['10.0.0.256', '1.2.3', '010.1.2.3', '10.0.0.0/33', '2001:db8::/129', 'fe80::1%eth0', 'example.com', '1.2.3.4/', '']) {
      const r = await put(client, { entries: ['198.51.100.1', bad] });
      expect({ bad, status: r.status }).toEqual({ bad, status: 400 });
      expect(r.body.error).toBe(`Invalid IP address or CIDR range: "${bad}"`);
    }
    const many = Array.from({ length: 51 }, (_, i) => `10.0.${i}.1`);
    const tooMany = await put(client, { entries: many });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toBe('At most 50 entries in the IP allow-list');
    expect((await put(client, { entries: many.slice(0, 50) })).status).toBe(200);
    expect((await client.get<Answer>('/api/ip-allowlist')).body.entries).toHaveLength(50);
    for (const bad of [{}, { entries: 'x' }, { entries: [1] }, { entries: [], passwordless: 'yes' }]) {
      expect((await client.request('PUT', '/api/ip-allowlist', bad)).status).toBe(400);
    }
    expect((await client.get<Answer>('/api/ip-allowlist')).body.entries).toHaveLength(50);
  });

  it('refuses a range wider than /8 (IPv4) or /32 (IPv6) with 400 naming it; host bits set are saved cleared and said so', async () => {
    const { client, user } = await signedInUser(server);
    expect((await put(client, { entries: ['192.0.2.1'] })).status).toBe(200);
    for (const wide of ['10.0.0.0/0', '0.0.0.0/0', '10.0.0.0/7', '2001:db8::/31', '::/0', '::ffff:10.0.0.0/100']) {
      const r = await put(client, { entries: ['198.51.100.1', wide] });
      expect({ wide, status: r.status }).toEqual({ wide, status: 400 });
      expect(r.body.error).toBe(`Range too wide: "${wide}". The allow-list takes ranges of at most /8 (IPv4) or /32 (IPv6)`);
    }
    const stored = await server.database.db.select().from(ipAllowlistEntries).where(eq(ipAllowlistEntries.userId, user.id));
    expect(stored.map((r) => r.entry)).toEqual(['192.0.2.1']);

    const saved = await put(client, { entries: ['10.0.0.0/8', '2001:db8::/32', ' 192.168.1.7/16', '2001:db8:1::5/48'] });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      entries: ['10.0.0.0/8', '2001:db8::/32', '192.168.0.0/16', '2001:db8:1::/48'],
      passwordless: false,
      notes: ['192.168.1.7/16 was saved as 192.168.0.0/16', '2001:db8:1::5/48 was saved as 2001:db8:1::/48'],
    });
    const rows = await server.database.db.select().from(ipAllowlistEntries).where(eq(ipAllowlistEntries.userId, user.id));
    expect(rows.map((r) => r.network).sort()).toEqual(['10.0.0.0/8', '192.168.0.0/16', '2001:db8:1::/48', '2001:db8::/32'].sort());
  });

  it('shows the address the request came from, through a trusted proxy too', async () => {
    const { client } = await signedInUser(proxied, 'Behind Proxy', { client: proxied.client({ ip: '203.0.113.99' }) });
    expect((await client.get<Answer>('/api/ip-allowlist')).body.currentAddress).toBe('203.0.113.99');
  });

  it('password-less: narrow entries only; a second claim of an address is 409, even at the same moment', async () => {
    const a = await signedInUser(server);
    const b = await signedInUser(server);
    const wide = await put(a.client, { entries: ['10.9.0.0/16'], passwordless: true });
    expect(wide.status).toBe(400);
    expect(wide.body.error).toMatch(/^Password-less access needs single addresses or ranges no wider than \/24 \(IPv4\) or \/56 \(IPv6\): 10\.9\.0\.0\/16/);

    expect((await put(a.client, { entries: ['198.51.100.0/24', '2001:db8:1::/56'], passwordless: true })).body).toEqual({
      entries: ['198.51.100.0/24', '2001:db8:1::/56'],
      passwordless: true,
      notes: [],
    });
    // Inside a's range, or a range holding a's: taken.
    for (const claim of ['198.51.100.77', '198.51.100.128/25', '2001:db8:1:ff::1']) {
      const r = await put(b.client, { entries: ['192.0.2.10', claim], passwordless: true });
      expect({ claim, status: r.status }).toEqual({ claim, status: 409 });
      expect(r.body.error).toBe(`${claim} is already password-less for another account: an address can be password-less for one account only`);
    }
    // Listing the address without password-less access is fine; so is claiming it once a lets go.
    expect((await put(b.client, { entries: ['198.51.100.77'], passwordless: false })).status).toBe(200);
    expect((await put(b.client, { entries: ['198.51.100.77'], passwordless: true })).status).toBe(409);
    // Omitting passwordless keeps the setting: a's list changes and stays password-less.
    expect((await put(a.client, { entries: ['198.51.100.0/24'] })).body).toEqual({ entries: ['198.51.100.0/24'], passwordless: true, notes: [] });
    expect((await put(a.client, { entries: ['198.51.100.0/24'], passwordless: false })).status).toBe(200);
    expect((await put(b.client, { entries: ['198.51.100.77'], passwordless: true })).status).toBe(200);
    expect((await put(a.client, { entries: ['198.51.100.0/24'], passwordless: true })).status).toBe(409);
  });

  it('two users claiming one address at once: exactly one wins', async () => {
    for (let round = 0; round < 5; round++) {
      const users = await Promise.all([signedInUser(server), signedInUser(server), signedInUser(server)]);
      const address = `203.0.113.${10 + round}`;
      const results = await Promise.all(users.map((u) => put(u.client, { entries: [address], passwordless: true })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      const claims = await server.database.db.select().from(ipAllowlistEntries).where(eq(ipAllowlistEntries.entry, address));
      expect(claims.filter((c) => c.passwordless)).toHaveLength(1);
    }
  });

  it('the gateway is told the list with the credentials, and whose password-less address a source is', async () => {
    const { client, user } = await signedInUser(server);
    const gateway = internalClient(server).gateway;
    const open = await gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
    expect(open.account).toMatchObject({ ok: true, allowlist: [] });
    expect((await put(client, { entries: ['192.0.2.200', '2001:db8:5::/56'], passwordless: true })).status).toBe(200);
    const listed = await gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
    expect(listed.account).toMatchObject({ ok: true, allowlist: expect.arrayContaining(['192.0.2.200/32', '2001:db8:5::/56']) as unknown });
    const mine = await gateway.authorizeAddress.mutate({ address: '2001:db8:5:0:1::9' });
    expect(mine.account).toMatchObject({ ok: true, proxyAccountId: (open.account as { proxyAccountId: string }).proxyAccountId });
    expect((await gateway.authorizeAddress.mutate({ address: '192.0.2.201' })).account).toMatchObject({ ok: false, reason: 'not_passwordless' });
    await expect(gateway.authorizeAddress.mutate({ address: 'nope' })).rejects.toThrow();
  });
});
