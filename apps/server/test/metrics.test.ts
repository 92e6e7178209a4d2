import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@proxyhub/db';
import { createTestDb } from '@proxyhub/db/testing';
import { createServer } from '../src/server';
import { INTERNAL_KEY, addCredits, promSample, signedInUser, startTestServer, trpcFor, type TestServer } from './helpers';

const sample = promSample;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const scrape = async (remoteAddress = '127.0.0.1', authorization?: string) =>
  server.app.inject({ method: 'GET', url: '/metrics', remoteAddress, ...(authorization ? { headers: { authorization } } : {}) });

describe('/metrics', () => {
  it('counts requests by route pattern, method and status, and times them', async () => {
    const { client } = await signedInUser(server);
    await client.get('/auth/user');
    await client.get('/auth/user');
    await client.get('/no/such/page/12345');
    await server.client().get('/api/locations/countries/US/states');
    const res = await scrape();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    expect(sample(text, 'http_requests_total', { route: '/auth/user', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'http_requests_total', { route: '/auth/login', method: 'POST', status: '200' })).toBe(1);
    // The pattern, never the raw URL: the label set stays bounded.
    expect(sample(text, 'http_requests_total', { route: '/api/locations/countries/:country/states', method: 'GET', status: '200' })).toBe(1);
    expect(text).not.toContain('/no/such/page');
    expect(text).not.toContain('countries/US');
    expect(sample(text, 'http_request_duration_seconds_count', { route: '/auth/user', method: 'GET' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'http_request_duration_seconds_bucket', { route: '/auth/user', method: 'GET', le: '+Inf' })).toBeGreaterThanOrEqual(2);
  });

  it('counts tRPC errors by procedure and code (made-up paths as one label)', async () => {
    const { client } = await signedInUser(server);
    const trpc = trpcFor(server, client, { batch: false });
    await expect(trpc.credits.redeem.mutate({ code: 'AAAAAAAAAAAAAAAA' })).rejects.toThrow();
    await server.client().get('/trpc/admin.notAProcedure123');
    const text = (await scrape()).body;
    expect(sample(text, 'trpc_errors_total', { procedure: 'credits.redeem' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'trpc_errors_total', { procedure: 'unknown', code: 'NOT_FOUND' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('notAProcedure123');
  });

  it('shows the database pool and the ledger totals, read at scrape time', async () => {
    const { user } = await signedInUser(server);
    const before = sample((await scrape()).body, 'proxyhub_ledger_bytes', { part: 'entries' }) ?? 0;
    await addCredits(server, user.id, 1000n);
    const text = (await scrape()).body;
    expect(sample(text, 'proxyhub_ledger_bytes', { part: 'entries' })).toBe(before + 1000);
    expect(sample(text, 'proxyhub_ledger_bytes', { part: 'credits' })).toBeGreaterThanOrEqual(1000);
    expect(sample(text, 'proxyhub_ledger_bytes', { part: 'imbalance' })).toBe(0);
    expect(sample(text, 'proxyhub_db_pool_max_connections')).toBe(server.database.driver === 'pglite' ? 1 : 20);
    expect(sample(text, 'proxyhub_db_pool_connections', { state: 'active' })).toBeGreaterThanOrEqual(1);
  });

  it('answers other addresses only with the internal key', async () => {
    const none = await scrape('203.0.113.9');
    expect(none.statusCode).toBe(401);
    expect(none.json()).toHaveProperty('error');
    expect((await scrape('203.0.113.9', 'Bearer wrong-key')).statusCode).toBe(403);
    const withKey = await scrape('203.0.113.9', `Bearer ${INTERNAL_KEY}`);
    expect(withKey.statusCode).toBe(200);
    expect(withKey.body).toContain('http_requests_total');
    expect((await scrape('::1')).statusCode).toBe(200);
  });

  it('does not take X-Forwarded-For from a process that does not trust proxies', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.9', headers: { 'x-forwarded-for': '127.0.0.1' } });
    expect(res.statusCode).toBe(401);
  });

  it('behind a trusted proxy, counts the forwarded client: a remote client relayed from loopback needs the key', async () => {
    const proxied = await startTestServer({ trustProxy: true });
    try {
      const relayed = (xff: string) => proxied.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': xff } });
      expect((await relayed('198.51.100.7')).statusCode).toBe(401);
      expect((await relayed('127.0.0.1')).statusCode).toBe(200);
      // A remote peer cannot claim to be local through the header.
      const forged = await proxied.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.9', headers: { 'x-forwarded-for': '127.0.0.1' } });
      expect(forged.statusCode).toBe(401);
    } finally {
      await proxied.close();
    }
  });
});

describe('/ready', () => {
  it('is 200 on a migrated database that answers', async () => {
    const res = await server.client().get('/ready');
    expect(res).toMatchObject({ status: 200, body: { status: 'ready' } });
  });

  const serverOn = (database: Database) => createServer({ config: server.config, database, logLevel: 'silent' });

  it('is 503 while migrations are missing, and /health still 200', async () => {
    const database = await createTestDb({ migrated: false });
    const s = await serverOn(database);
    try {
      const res = await s.app.inject({ method: 'GET', url: '/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'not ready', reason: expect.stringMatching(/^migrations pending: 0 of \d+ applied$/) as unknown });
      expect((await s.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      await database.migrate();
      expect((await s.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('is 503 when the database does not answer', async () => {
    const database = await createTestDb();
    const s = await serverOn({ ...database, close: () => Promise.resolve() });
    try {
      await database.close();
      const res = await s.app.inject({ method: 'GET', url: '/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'not ready', reason: 'database unreachable' });
      // Metrics still answer (without the figures the database would give).
      expect((await s.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    } finally {
      await s.close();
    }
  });
});
