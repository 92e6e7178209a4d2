/**
 * POST /api/lines/rotate ("A new IP now") over HTTP and tRPC: the caller's sticky line (their main
 * account's or a sub-account's) moves its rotation counter, which the gateways get with the
 * account's login answer; someone else's or an unknown line is 404, a rotating line 400 with the
 * spec's words, a malformed one 400 naming what is wrong, and the 31st rotation in a minute 429.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '@proxyhub/api';
import { buildProxyUsername } from '@proxyhub/core';
import { HttpClient, internalClient, RELAXED_LIMITS, sessionClient } from '@proxyhub/testing';
import { signedInUser, startTestServer, type TestServer } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: { ...RELAXED_LIMITS, lineRotate: DEFAULT_RATE_LIMITS.lineRotate } });
});
afterAll(() => server.close());

type Rotated = { username: string; rotation: number; rotatedAt: string; error?: string };
const line = (proxyUserId: string, minutes = 30, token = 'ROTATE01') =>
  buildProxyUsername({ proxyUserId, location: { country: 'US' }, durationMinutes: minutes, token });

describe('POST /api/lines/rotate', () => {
  it("counts each rotation of the caller's own line (main or sub-account) and hands the counter to the gateways", async () => {
    const { client, user } = await signedInUser(server);
    const username = line(user.proxyUserId);
    const before = Date.now();
    const first = await client.post<Rotated>('/api/lines/rotate', { username });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ username, rotation: 1, rotatedAt: expect.any(String) });
    expect(Date.parse(first.body.rotatedAt)).toBeGreaterThanOrEqual(before - 1000);
    // The whole line as copied from the list works too.
    const second = await client.post<Rotated>('/api/lines/rotate', { username: `gw.example.com:8080:${username}:${user.proxyPassword}` });
    expect(second.body).toMatchObject({ username, rotation: 2 });

    const sub = await client.post<{ account: { proxyUserId: string; proxyPassword: string } }>('/api/proxy-accounts', { name: 'scraper', capGB: null });
    expect(sub.status).toBe(201);
    const subLine = line(sub.body.account.proxyUserId, 10, 'SUBLINE1');
    // tRPC too, as the web app calls it.
    const trpc = sessionClient(server, client);
    expect(await trpc.proxyAccounts.rotateLine.mutate({ username: subLine })).toMatchObject({ username: subLine, rotation: 1 });

    const gw = internalClient(server);
    const main = await gw.gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
    expect(main.account).toMatchObject({ ok: true, rotations: [{ token: 'ROTATE01', count: 2, at: Date.parse(second.body.rotatedAt) }] });
    const subAnswer = await gw.gateway.authorize.mutate({ proxyUserId: sub.body.account.proxyUserId, password: sub.body.account.proxyPassword });
    expect(subAnswer.account).toMatchObject({ ok: true, rotations: [{ token: 'SUBLINE1', count: 1 }] });
    // The same line with another location or duration is the same line (its token).
    const other = await client.post<Rotated>('/api/lines/rotate', {
      username: buildProxyUsername({ proxyUserId: user.proxyUserId, location: { country: 'DE' }, durationMinutes: 60, token: 'ROTATE01' }),
    });
    expect(other.body.rotation).toBe(3);
  });

  it("refuses someone else's line or an unknown one (404), a rotating line (400) and a malformed one (400), each with why", async () => {
    const { client } = await signedInUser(server);
    const { user: other } = await signedInUser(server);
    const theirs = await client.post<Rotated>('/api/lines/rotate', { username: line(other.proxyUserId) });
    expect(theirs).toMatchObject({
      status: 404,
      body: { error: `Not one of your proxy lines: ${other.proxyUserId} is not your proxy user ID or one of your proxy accounts` },
    });
    const unknown = await client.post<Rotated>('/api/lines/rotate', { username: line('nosuchuser1') });
    expect(unknown.status).toBe(404);
    // Nothing was counted for them.
    const answer = await internalClient(server).gateway.authorize.mutate({ proxyUserId: other.proxyUserId, password: other.proxyPassword });
    expect(answer.account).toMatchObject({ ok: true, rotations: [] });

    const { user } = await signedInUser(server, 'Rotating', { client });
    const rotating = await client.post<Rotated>('/api/lines/rotate', { username: line(user.proxyUserId, 0) });
    expect(rotating).toMatchObject({ status: 400, body: { error: 'Rotating lines get a new IP on every connection' } });
    expect((await client.post<Rotated>('/api/lines/rotate', { username: 'not a line' })).body.error).toBe('Paste a proxy line or username from the generator');
    const badDuration = await client.post<Rotated>('/api/lines/rotate', { username: `${user.proxyUserId}_US_99999_ROTATE01` });
    expect(badDuration.status).toBe(400);
    expect(badDuration.body.error).toMatch(/^Not a proxy username: invalid duration/);
    const missing = await client.post<Rotated>('/api/lines/rotate', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('Paste a proxy line or username from the generator');
    expect((await client.post<Rotated>('/api/lines/rotate', { username: 'x'.repeat(2000) })).status).toBe(400);
  });

  it('allows 30 rotations a minute per user: the 31st is 429 with a message', async () => {
    const { client, user } = await signedInUser(server);
    const username = line(user.proxyUserId);
    for (let i = 1; i <= 30; i++) expect((await client.post<Rotated>('/api/lines/rotate', { username })).body.rotation).toBe(i);
    const r = await client.post<Rotated>('/api/lines/rotate', { username });
    expect(r.status).toBe(429);
    expect(r.body.error).toMatch(/^Too many attempts\. Please try again in \d+ seconds\.$/);
  });

  it('needs a signed-in caller', async () => {
    const anonymous = new HttpClient(server.url, server.config.publicUrl);
    expect((await anonymous.post('/api/lines/rotate', { username: line('someone1') })).status).toBe(401);
  });
});
