// The credential cache against a scripted server: answers are reused while fresh, bad ones too, and
// credentials in use are re-checked, so a revocation closes them even after an outage.
import { describe, expect, it } from 'vitest';
import { AuthCache, credKeyOf } from '../src/auth-cache';
import type { AccountAnswer, Backend } from '../src/backend';
import { silentLogger } from '../src/log';

const GOOD: AccountAnswer = {
  ok: true,
  proxyAccountId: 'acc-1',
  usageType: 'normal_proxy',
  allowlist: [],
  maxConnections: null,
  targetPolicyExempt: false,
  rotations: [],
};
const BAD: AccountAnswer = { ok: false, reason: 'bad_credentials', message: 'Invalid proxy username or password' };
const US = { country: 'US' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function scriptedServer() {
  const server: { answer: AccountAnswer; down: boolean; calls: number; backend: Backend } = {
    answer: GOOD,
    down: false,
    calls: 0,
    backend: {
      authorize: async (input) => {
        server.calls += 1;
        if (server.down) throw new Error('ECONNREFUSED');
        return { account: server.answer, locationKnown: input.location ? true : null };
      },
      authorizeAddress: () => Promise.reject(new Error('unused')),
      reserveLease: () => Promise.reject(new Error('unused')),
      report: () => Promise.reject(new Error('unused')),
      releaseLeases: () => Promise.reject(new Error('unused')),
      upstreams: () => Promise.reject(new Error('unused')),
      heartbeat: () => Promise.reject(new Error('unused')),
    },
  };
  return server;
}

describe('credential cache', () => {
  it('answers from memory while fresh (refusals too, for less long), with one call for concurrent checks', async () => {
    const server = scriptedServer();
    const cache = new AuthCache(server.backend, { ttlMs: 400, negativeTtlMs: 100, maxEntries: 10 }, silentLogger, () => undefined);
    const [a, b] = await Promise.all([cache.check('u1', 'pw', US), cache.check('u1', 'pw', US)]);
    expect(a).toEqual({ account: GOOD, locationKnown: true });
    expect(b).toEqual(a);
    expect(cache.check('u1', 'pw', US)).toEqual(a); // synchronous: no call
    expect(server.calls).toBe(1);

    server.answer = BAD;
    expect((await cache.check('u1', 'wrong', US)).account).toEqual(BAD);
    expect((await cache.check('u1', 'wrong', US)).account).toEqual(BAD);
    expect(server.calls).toBe(2);
    await sleep(150);
    await cache.check('u1', 'wrong', US);
    expect(server.calls).toBe(3);
  });

  it('keeps at most maxEntries credentials, forgetting the least recently used', async () => {
    const server = scriptedServer();
    const cache = new AuthCache(server.backend, { ttlMs: 10_000, negativeTtlMs: 10_000, maxEntries: 2 }, silentLogger, () => undefined);
    await cache.check('u1', 'pw', US);
    await cache.check('u2', 'pw', US);
    void cache.check('u1', 'pw', US); // u1 used again: u2 is the oldest now
    await cache.check('u3', 'pw', US);
    expect(server.calls).toBe(3);
    expect(cache.check('u1', 'pw', US)).not.toBeInstanceOf(Promise);
    expect(cache.check('u2', 'pw', US)).toBeInstanceOf(Promise);
  });

  it('revokes credentials in use when a refresh says no, even when their entry expired during an outage', async () => {
    const server = scriptedServer();
    const revoked: string[] = [];
    const cache = new AuthCache(server.backend, { ttlMs: 100, negativeTtlMs: 50, maxEntries: 10 }, silentLogger, (key) => revoked.push(key));
    await cache.check('u1', 'pw', US);
    const inUse = [credKeyOf('u1', 'pw')];
    server.down = true;
    cache.refreshInUse(inUse);
    await sleep(150); // the entry is gone now, and the server comes back with a no
    server.down = false;
    server.answer = { ok: false, reason: 'disabled', message: 'This proxy account is disabled' };
    cache.refreshInUse(inUse);
    await sleep(20);
    expect(revoked).toEqual(inUse);
  });
});
