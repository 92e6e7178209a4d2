/**
 * Scoped API keys: every user REST path and tRPC procedure walked with a key of each scope (allowed:
 * not refused for its scope; outside: 403 `Missing scope: <scope>`), the keys' own rules (expiry,
 * networks, at most 20, shown once, deleted is refused at once) and the Default key (today's key).
 * A path or procedure missing from the maps below fails the walk, so a new one must name its scope.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '@proxyhub/api';
import { API_KEY_SCOPES, MAX_API_KEYS, type ApiKeyScope, type ApiKeyView, type RequiredScope } from '@proxyhub/core';
import { apiKeys, migrationsFolder, users } from '@proxyhub/db';
import { restRoutes } from '../src/rest';
import { createTestDb, signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';
import { REST_SCOPES, TRPC_SCOPES } from './user-scopes';

const missing = (scope: RequiredScope) => ({ success: false, error: `Missing scope: ${scope}`, code: 'MISSING_SCOPE' });

let server: TestServer;
let owner: HttpClient;
let user: { id: string; apiKey: string; proxyUserId: string; proxyPassword: string };
const keyed = {} as Record<ApiKeyScope, HttpClient>;

const withKey = (secret: string, ip?: string) => {
  const c = server.client(ip ? { ip } : {});
  c.bearer = secret;
  return c;
};
const createKey = (body: object, client = owner) => client.post<{ key: ApiKeyView; secret: string; error?: string }>('/api/keys', body);

beforeAll(async () => {
  // One proxy hop in front: the client address is the X-Forwarded-For entry the test sets.
  server = await startTestServer({ trustProxy: 1 });
  ({ client: owner, user } = await signedInUser(server));
  for (const scope of API_KEY_SCOPES) {
    const r = await createKey({ name: `only ${scope}`, scopes: [scope] });
    expect(r.status).toBe(201);
    keyed[scope] = withKey(r.body.secret);
  }
});
afterAll(() => server.close());

const fill = (url: string) =>
  url
    .replace(':paymentId', '00000000-0000-4000-8000-000000000000')
    .replace(':deliveryId', '00000000-0000-4000-8000-000000000000')
    .replace(':id', '00000000-0000-4000-8000-000000000000')
    .replace(':proxyUserId', 'nosuchuser')
    .replace(':date', '2026-01-01')
    .replace(':code', 'NOPE0000');

describe('every user REST path with a key of each scope', () => {
  const bodyless = (method: string) => method === 'GET' || method === 'DELETE';
  it.each(API_KEY_SCOPES)('%s', async (scope) => {
    const anonymous = server.client();
    const walked: string[] = [];
    for (const r of restRoutes) {
      if (r.url.startsWith('/admin') || r.url.startsWith('/auth/admin')) continue;
      const stranger = await anonymous.request(r.method, fill(r.url), bodyless(r.method) ? undefined : {});
      if (stranger.status !== 401) continue;
      const key = `${r.method} ${r.url}`;
      walked.push(key);
      const needs = REST_SCOPES[key];
      expect({ key, mapped: needs !== undefined }).toEqual({ key, mapped: true });
      const res = await keyed[scope].request<unknown>(r.method, fill(r.url), bodyless(r.method) ? undefined : {});
      if (needs === scope) expect({ key, status: res.status, body: res.body }).not.toMatchObject({ key, status: 403 });
      // The printable receipt answers its refusal as a page, with the same words.
      else if (typeof res.body === 'string')
        expect({ key, status: res.status, says: res.body.includes(missing(needs!).error) }).toEqual({ key, status: 403, says: true });
      else expect({ key, status: res.status, body: res.body }).toEqual({ key, status: 403, body: missing(needs!) });
    }
    expect(walked.sort()).toEqual(Object.keys(REST_SCOPES).sort());
  });
});

describe('every user tRPC procedure with a key of each scope', () => {
  const all = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>);
  const call = (client: HttpClient, path: string, type: string) =>
    type === 'query' ? client.get(`/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`) : client.post(`/trpc/${path}`, { json: {} });
  const messageOf = (body: unknown) => (body as { error?: { json?: { message?: string } } }).error?.json?.message;

  it.each(API_KEY_SCOPES)('%s', async (scope) => {
    const anonymous = server.client();
    const walked: string[] = [];
    for (const [path, proc] of all) {
      const stranger = await call(anonymous, path, proc._def.type);
      if (stranger.status !== 401 || messageOf(stranger.body) !== 'Not authenticated') continue;
      walked.push(path);
      const needs = TRPC_SCOPES[path];
      expect({ path, mapped: needs !== undefined }).toEqual({ path, mapped: true });
      const res = await call(keyed[scope], path, proc._def.type);
      const message = messageOf(res.body);
      if (needs === scope) expect({ path, status: res.status }).not.toEqual({ path, status: 403 });
      else expect({ path, status: res.status, message }).toEqual({ path, status: 403, message: missing(needs!).error });
    }
    expect(walked.sort()).toEqual(Object.keys(TRPC_SCOPES).sort());
  });
});

describe('creating, listing and deleting keys', () => {
  it('POST /api/keys answers the secret once; the list shows its prefix only; the database holds its HMAC', async () => {
    const r = await createKey({
      name: 'reporting',
      scopes: ['usage:read', 'accounts:read'],
      expiresAt: '2099-01-31',
      allowedCidrs: ['10.0.0.7/8', '2001:db8::/32'],
    });
    expect(r).toMatchObject({
      status: 201,
      body: {
        key: {
          id: expect.any(String),
          name: 'reporting',
          scopes: ['usage:read', 'accounts:read'],
          expiresAt: '2099-01-31T00:00:00.000Z',
          allowedCidrs: ['10.0.0.0/8', '2001:db8::/32'],
          createdAt: expect.any(String),
          lastUsedAt: null,
          prefix: r.body.secret.slice(0, 8),
        },
        secret: expect.stringMatching(/^pk_/),
      },
    });
    const list = await owner.get<{ keys: ApiKeyView[] }>('/api/keys');
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain(r.body.secret);
    expect(list.body.keys.find((k) => k.id === r.body.key.id)).toEqual(r.body.key);
    const [row] = await server.deps.db.select().from(apiKeys).where(eq(apiKeys.id, r.body.key.id));
    expect(JSON.stringify(row)).not.toContain(r.body.secret);
    expect(row!.keyHash).toBe(server.deps.secrets.lookupHash(r.body.secret));
  });

  it('bad input is a 400 naming it: an unknown scope, an invalid CIDR, no name, a past expiry', async () => {
    expect(await createKey({ name: 'x', scopes: ['usage:read', 'usage:write'] })).toMatchObject({
      status: 400,
      body: { success: false, error: expect.stringContaining('Unknown scope: usage:write') },
    });
    expect(await createKey({ name: 'x', scopes: ['usage:read'], allowedCidrs: ['10.0.0.0/8', '10.0.0.300/8'] })).toMatchObject({
      status: 400,
      body: { success: false, error: 'Invalid CIDR: "10.0.0.300/8"' },
    });
    expect(await createKey({ name: ' ', scopes: ['usage:read'] })).toMatchObject({ status: 400, body: { error: 'Name is required' } });
    expect(await createKey({ name: 'x', scopes: [] })).toMatchObject({ status: 400, body: { error: 'Choose at least one scope' } });
    expect(await createKey({ name: 'x', scopes: ['usage:read'], expiresAt: '2001-01-01' })).toMatchObject({
      status: 400,
      body: { error: 'Expiry must be in the future' },
    });
  });

  it('at most 20 keys per account (the Default key counts): the 21st is a 409 saying why', async () => {
    const { client } = await signedInUser(server);
    for (let i = 1; i < MAX_API_KEYS; i++) expect((await createKey({ name: `k${i}`, scopes: ['usage:read'] }, client)).status).toBe(201);
    expect(await createKey({ name: 'one too many', scopes: ['usage:read'] }, client)).toMatchObject({
      status: 409,
      body: { success: false, error: 'At most 20 API keys per account: delete one first' },
    });
    expect((await client.get<{ keys: unknown[] }>('/api/keys')).body.keys).toHaveLength(MAX_API_KEYS);
  });

  it('a deleted key is refused at once; another account cannot delete it', async () => {
    const r = await createKey({ name: 'leaving', scopes: ['usage:read'] });
    const key = withKey(r.body.secret);
    expect((await key.get('/api/usage')).status).toBe(200);
    const stranger = (await signedInUser(server)).client;
    expect(await stranger.request('DELETE', `/api/keys/${r.body.key.id}`)).toMatchObject({ status: 404, body: { error: 'API key not found' } });
    expect(await owner.request('DELETE', `/api/keys/${r.body.key.id}`)).toMatchObject({ status: 200, body: { success: true } });
    expect(await key.get('/api/usage')).toMatchObject({ status: 401, body: { success: false, error: 'Not authenticated' } });
  });

  it('an expired key is a 401 saying so', async () => {
    const r = await createKey({ name: 'short', scopes: ['usage:read'], expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    const key = withKey(r.body.secret);
    expect((await key.get('/api/usage')).status).toBe(200);
    // No API moves an expiry into the past: the row is aged directly.
    await server.deps.db
      .update(apiKeys)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(apiKeys.id, r.body.key.id));
    server.deps.cache.invalidate();
    expect(await key.get('/api/usage')).toMatchObject({ status: 401, body: { success: false, error: 'API key expired' } });
    expect((await key.get(`/trpc/usage.history?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`)).status).toBe(401);
  });

  it('a key limited to networks is a 401 from any other address', async () => {
    const r = await createKey({ name: 'office', scopes: ['usage:read'], allowedCidrs: ['198.51.100.0/24', '2001:db8::/32'] });
    expect((await withKey(r.body.secret, '198.51.100.77').get('/api/usage')).status).toBe(200);
    expect((await withKey(r.body.secret, '2001:db8::5').get('/api/usage')).status).toBe(200);
    expect(await withKey(r.body.secret, '203.0.113.9').get('/api/usage')).toMatchObject({
      status: 401,
      body: { success: false, error: 'API key not allowed from this address' },
    });
  });

  it('lastUsedAt is set by a use and moves at most once a minute', async () => {
    const r = await createKey({ name: 'busy', scopes: ['usage:read'] });
    const used = async () => (await server.deps.db.select().from(apiKeys).where(eq(apiKeys.id, r.body.key.id)))[0]!.lastUsedAt;
    expect(await used()).toBeNull();
    const key = withKey(r.body.secret);
    expect((await key.get('/api/usage')).status).toBe(200);
    const first = await used();
    expect(first).not.toBeNull();
    for (let i = 0; i < 3; i++) expect((await key.get('/api/usage')).status).toBe(200);
    expect(await used()).toEqual(first);
    const listed = (await owner.get<{ keys: ApiKeyView[] }>('/api/keys')).body.keys.find((k) => k.id === r.body.key.id)!;
    expect(listed.lastUsedAt).toBe(first!.toISOString());
  });

  it('the README’s calls: one REST path and one tRPC procedure with a usage:read key', async () => {
    const key = keyed['usage:read'];
    expect(await key.get('/api/usage?granularity=day')).toMatchObject({ status: 200 });
    const trpc = await key.get<{ result: { data: { json: unknown } } }>('/trpc/usage.history?input=%7B%22json%22%3A%7B%22granularity%22%3A%22day%22%7D%7D');
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data.json).toBeTruthy();
    expect(await keyed['lines:generate'].get('/api/usage?granularity=day')).toMatchObject({ status: 403, body: missing('usage:read') });
  });

  it('a key with scopes reads /auth/user without the Default key in it', async () => {
    const me = await keyed['accounts:read'].get<{ user: { id: string; apiKey: string } }>('/auth/user');
    expect(me).toMatchObject({ status: 200, body: { user: { id: user.id, apiKey: '' } } });
  });
});

describe('the Default key (today’s key)', () => {
  it('is listed as "Default" with every scope, works everywhere, rotates with auth.rotateApiKey and cannot be deleted', async () => {
    const { client, user: u } = await signedInUser(server);
    const list = async () => (await client.get<{ keys: ApiKeyView[] }>('/api/keys')).body.keys;
    const [def] = await list();
    expect(def).toMatchObject({ name: 'Default', scopes: [...API_KEY_SCOPES], prefix: u.apiKey.slice(0, 8), isDefault: true });
    const key = withKey(u.apiKey);
    expect((await key.get('/auth/user')).body).toMatchObject({ user: { apiKey: u.apiKey } });
    expect((await key.get('/api/keys')).status).toBe(200);
    expect((await key.get('/api/proxy-list?country=US&count=1')).status).toBe(200);
    expect(await client.request('DELETE', `/api/keys/${def!.id}`)).toMatchObject({
      status: 409,
      body: { error: 'The Default key cannot be deleted: rotate it instead' },
    });

    const rotated = await key.post<{ apiKey: string }>('/auth/rotate-api-key');
    expect(rotated.status).toBe(200);
    expect((await key.get('/auth/user')).status).toBe(401);
    expect((await withKey(rotated.body.apiKey).get('/api/keys')).status).toBe(200);
    const after = await list();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: def!.id, name: 'Default', prefix: rotated.body.apiKey.slice(0, 8) });
  });

  it('the migration copies every account’s key (not a deleted one’s) as its Default key with every scope', async () => {
    const dir = migrationsFolder();
    const file = readdirSync(dir).find((f) => f.endsWith('_api_keys.sql'))!;
    const copy = readFileSync(join(dir, file), 'utf8')
      .split('--> statement-breakpoint')
      .find((s) => s.includes('INSERT INTO "api_keys"'))!;
    const database = await createTestDb();
    try {
      const { db } = database;
      const [kept] = await db.insert(users).values({ email: 'kept@example.com', name: 'Kept', apiKeyHash: 'hash-kept', apiKeyEnc: 'enc' }).returning();
      await db.insert(users).values({ email: 'gone@example.com', name: '', apiKeyHash: 'hash-gone', apiKeyEnc: 'enc', deletedAt: new Date() });
      await db.execute(sql.raw(copy));
      const rows = await db.select().from(apiKeys);
      expect(rows).toEqual([
        expect.objectContaining({ userId: kept!.id, name: 'Default', scopes: [...API_KEY_SCOPES], keyHash: 'hash-kept', isDefault: true, prefix: '' }),
      ]);
    } finally {
      await database.close();
    }
  });

  it('a Default key copied by the migration (no prefix stored) shows its prefix from the account', async () => {
    const { client, user: u } = await signedInUser(server);
    await server.deps.db
      .update(apiKeys)
      .set({ prefix: '' })
      .where(eq(apiKeys.keyHash, server.deps.secrets.lookupHash(u.apiKey)));
    const [def] = (await client.get<{ keys: ApiKeyView[] }>('/api/keys')).body.keys;
    expect(def!.prefix).toBe(u.apiKey.slice(0, 8));
  });
});

describe('GET /api/proxy-list', () => {
  const lines = keyed;
  it('text/plain by default: the generator’s lines for the main account', async () => {
    const r = await lines['lines:generate'].request<string>('GET', '/api/proxy-list?country=us&state=CA&duration=0&count=3');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    const rows = String(r.body).trimEnd().split('\n');
    expect(rows).toHaveLength(3);
    const { proxyPassword } = (await owner.get<{ user: { proxyPassword: string } }>('/auth/user')).body.user;
    for (const row of rows) expect(row).toMatch(new RegExp(`^[^:]+:\\d+:${user.proxyUserId}_US-CA_0_[A-Z0-9]{8}:${proxyPassword}$`));
  });

  it('JSON with Accept: application/json, in the format and for the proxy account asked', async () => {
    const sub = await owner.post<{ account: { proxyUserId: string; proxyPassword: string } }>('/api/proxy-accounts', { name: 'scraper', capGB: null });
    expect(sub.status).toBe(201);
    const { proxyUserId, proxyPassword } = sub.body.account;
    const r = await lines['lines:generate'].request<{ lines: string[]; endpoint: { host: string; port: number } }>(
      'GET',
      `/api/proxy-list?country=US&duration=60&count=2&format=http-url&account=${proxyUserId}`,
      undefined,
      { accept: 'application/json' },
    );
    expect(r).toMatchObject({ status: 200, body: { endpoint: { host: expect.any(String), port: expect.any(Number) } } });
    expect(Object.keys(r.body).sort()).toEqual(['endpoint', 'lines']);
    const { host, port } = r.body.endpoint;
    expect(r.body.lines).toHaveLength(2);
    for (const line of r.body.lines) expect(line).toMatch(new RegExp(`^http://${proxyUserId}_US_60_[A-Z0-9]{8}:${proxyPassword}@${host}:${port}$`));
  });

  it('bad input is a 400 naming the field; other scopes are refused', async () => {
    const get = (q: string) => lines['lines:generate'].get<{ error: string }>(`/api/proxy-list?${q}`);
    expect(await get('country=US&count=0')).toMatchObject({ status: 400, body: { error: 'Count must be a whole number from 1 to 10000' } });
    expect(await get('country=US&count=10001')).toMatchObject({ status: 400, body: { error: 'Count must be a whole number from 1 to 10000' } });
    expect(await get('country=US&count=ten')).toMatchObject({ status: 400, body: { error: 'Count must be a whole number from 1 to 10000' } });
    expect(await get('country=ZZ')).toMatchObject({ status: 400, body: { error: 'Country: ZZ is not offered' } });
    expect(await get('country=U$')).toMatchObject({ status: 400, body: { error: 'Country must be a location code such as US' } });
    expect(await get('count=5')).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^Country/) } });
    expect(await get('country=US&duration=7')).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^Duration must be one of 0, 5, 10/) } });
    expect(await get('country=US&format=csv')).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^Format must be one of/) } });
    expect(await get('country=US&account=nosuchuser')).toMatchObject({ status: 400, body: { error: 'Account: no enabled proxy account nosuchuser' } });
    expect(await lines['usage:read'].get('/api/proxy-list?country=US')).toMatchObject({ status: 403, body: missing('lines:generate') });
    expect((await get('country=US&count=10000')).status).toBe(200);
  });
});
