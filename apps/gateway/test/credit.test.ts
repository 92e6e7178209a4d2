import { connect, type Socket } from 'node:net';
import { eq } from 'drizzle-orm';
import { SocksClient } from 'socks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyAccounts, users } from '@proxyhub/db';
import { balances, basic, curl, expectLedgerHolds, INTERNAL_KEY, startStack, startTarget, userWithCredits, type ProxyUser, type Stack } from './helpers';

const MiB = 1024 * 1024;
let stack: Stack;
let target: Awaited<ReturnType<typeof startTarget>>;

beforeAll(async () => {
  // Small leases and quick retries, so cut-off and top-up show within a test's patience.
  stack = await startStack({
    meter: { initialLeaseBytes: 256 * 1024, minLeaseBytes: 128 * 1024, emptyRetryMs: 100 },
    auth: { ttlMs: 600, negativeTtlMs: 200 },
  });
  target = await startTarget();
});
afterAll(async () => {
  await stack?.close();
  await target?.close();
});

/** Opens a CONNECT tunnel; resolves with the socket after the 200, or the refusal text. */
function tunnel(u: ProxyUser, name = u.username()): Promise<{ socket: Socket; head: string; ok: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: stack.port });
    socket.write(`CONNECT 127.0.0.1:${target.port} HTTP/1.1\r\nProxy-Authorization: ${basic(name, u.proxyPassword)}\r\n\r\n`);
    let buf: Buffer = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const head = buf.toString('latin1', 0, end);
      const ok = head.startsWith('HTTP/1.1 200');
      if (!ok) {
        // Refusals carry a body: collect it too.
        const parts = [buf.subarray(end + 4)];
        socket.on('data', (x: Buffer) => parts.push(x));
        socket.on('close', () => resolve({ socket, head: `${head}\r\n\r\n${Buffer.concat(parts).toString()}`, ok }));
        return;
      }
      if (buf.length > end + 4) socket.unshift(buf.subarray(end + 4));
      resolve({ socket, head, ok });
    };
    socket.on('data', onData);
    socket.on('error', reject);
  });
}

/** Resolves when the socket closes, whatever the reason (a reset included). */
function closed(socket: Socket): Promise<void> {
  socket.on('error', () => undefined);
  return new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
}

/** Downloads through an open tunnel; counts bytes received until the gateway closes it. */
async function drain(socket: Socket, request: string): Promise<number> {
  let n = 0;
  socket.on('data', (d: Buffer) => (n += d.length));
  socket.on('error', () => undefined);
  socket.write(request);
  await closed(socket);
  return n;
}

async function redeemTopUp(u: ProxyUser, creditsGB: number) {
  const admin = stack.server.client({ origin: null });
  admin.bearer = INTERNAL_KEY;
  const made = await admin.post<{ codes: Array<{ code: string }> }>('/admin/codes/create', { creditsGB, quantity: 1, expiresAt: null });
  expect(made.status).toBe(200);
  const r = await u.client.post('/auth/redeem-code', { code: made.body.codes[0]!.code });
  expect(r.status).toBe(200);
}

describe('credentials', () => {
  it('refuses a wrong or missing password with 407 and Proxy-Authenticate; SOCKS5 with the RFC 1929 failure status', async () => {
    const u = await userWithCredits(stack.server, 10n * BigInt(MiB));
    const wrong = await curl(['-i', '-x', stack.proxyUrl, '-U', `${u.username()}:not-the-password`, `${target.url}/hello`]);
    expect(wrong.status).toBe(407);
    expect(wrong.stdout).toMatch(/Proxy-Authenticate: Basic realm="ProxyHub"/);
    expect(wrong.stdout).toContain('Invalid proxy username or password');
    const missing = await curl(['-i', '-p', '-x', stack.proxyUrl, `${target.url}/hello`]);
    expect(missing.stdout).toMatch(/^HTTP\/1\.1 407/);
    expect(missing.stdout).toMatch(/Proxy-Authenticate: Basic/);

    const err = await SocksClient.createConnection({
      proxy: { host: '127.0.0.1', port: stack.port, type: 5, userId: u.username(), password: 'wrong' },
      command: 'connect',
      destination: { host: '127.0.0.1', port: target.port },
    }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/Authentication failed/i);
  });

  it('refuses malformed usernames, unknown locations and durations other than rotating (0) or 1 minute to 7 days, saying why', async () => {
    const u = await userWithCredits(stack.server, 10n * BigInt(MiB));
    const cases: Array<[string, RegExp]> = [
      [`${u.proxyUserId}`, /Malformed proxy username: username must be/],
      [`${u.proxyUserId}_US_60`, /Malformed proxy username/],
      [`${u.proxyUserId}_us_60_ABCDEFGH`, /invalid location/],
      [`${u.proxyUserId}_US_10081_ABCDEFGH`, /invalid duration: 0 \(rotating\) or 1 to 10080 minutes/],
      [`${u.proxyUserId}_US_60_abc`, /invalid session token/],
      [`${u.proxyUserId}_ZZ_60_ABCDEFGH`, /Location not offered: ZZ/],
      [`${u.proxyUserId}_US-NOSUCHSTATE_60_ABCDEFGH`, /Location not offered: US-NOSUCHSTATE/],
    ];
    for (const [name, why] of cases) {
      const r = await curl(['-x', stack.proxyUrl, '-U', `${name}:${u.proxyPassword}`, `${target.url}/hello`]);
      expect(r.status, name).toBe(407);
      expect(r.stdout, name).toMatch(why);
    }
    // The limits themselves are accepted.
    for (const minutes of [0, 1, 10080]) {
      const r = await curl(['-x', stack.proxyUrl, '-U', `${u.username({ country: 'US' }, minutes)}:${u.proxyPassword}`, `${target.url}/hello`]);
      expect(r.status).toBe(200);
    }
  });

  it('a disabled user or a changed proxy password takes effect within seconds, open tunnels included', async () => {
    const u = await userWithCredits(stack.server, 10n * BigInt(MiB));
    const open = await tunnel(u);
    expect(open.ok).toBe(true);
    const openClosed = closed(open.socket);
    await stack.server.database.db
      .update(proxyAccounts)
      .set({ proxyPasswordEnc: stack.server.deps.secrets.encrypt('NewPassword123') })
      .where(eq(proxyAccounts.userId, u.userId));
    await openClosed; // the credentials refresh closes the tunnel that used the old password
    const old = await curl(['-x', stack.proxyUrl, '-U', `${u.username()}:${u.proxyPassword}`, `${target.url}/hello`]);
    expect(old.status).toBe(407);
    const fresh = await curl(['-x', stack.proxyUrl, '-U', `${u.username()}:NewPassword123`, `${target.url}/hello`]);
    expect(fresh.status).toBe(200);

    const again = await tunnel({ ...u, proxyPassword: 'NewPassword123' });
    expect(again.ok).toBe(true);
    const closedAgain = closed(again.socket);
    await stack.server.database.db.update(users).set({ disabledAt: new Date() }).where(eq(users.id, u.userId));
    await closedAgain;
    const disabled = await curl(['-x', stack.proxyUrl, '-U', `${u.username()}:NewPassword123`, `${target.url}/hello`]);
    expect(disabled.status).toBe(407);
    expect(disabled.stdout).toContain('disabled');
  });
});

describe('credit', () => {
  it('cuts off at zero credit: served bytes stay within the balance, every open tunnel closes, new ones hear the balance is empty; a top-up restores access', async () => {
    const credits = 3n * BigInt(MiB);
    const u = await userWithCredits(stack.server, credits);
    const idle = await tunnel(u);
    expect(idle.ok).toBe(true);
    const idleClosed = closed(idle.socket);
    const busy = await tunnel(u);
    const received = await drain(busy.socket, `GET /download?bytes=${10 * MiB} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
    await idleClosed;
    expect(received).toBeGreaterThan(2 * MiB);
    expect(received).toBeLessThanOrEqual(Number(credits));

    const refused = await curl(['-x', stack.proxyUrl, '-U', `${u.username()}:${u.proxyPassword}`, `${target.url}/hello`]);
    expect(refused.status).toBe(402);
    expect(refused.stdout).toBe(`Out of data: top up at ${stack.server.config.publicUrl}/topup\n`);
    const viaConnect = await tunnel(u);
    expect(viaConnect.ok).toBe(false);
    expect(viaConnect.head).toMatch(/^HTTP\/1\.1 402/);
    expect(viaConnect.head).toContain('Out of data');
    const socks = await SocksClient.createConnection({
      proxy: { host: '127.0.0.1', port: stack.port, type: 5, userId: u.username(), password: u.proxyPassword },
      command: 'connect',
      destination: { host: '127.0.0.1', port: target.port },
    }).catch((e: Error) => e);
    expect((socks as Error).message).toMatch(/NotAllowed/);

    await stack.gateway.flush();
    // Every byte of the balance was spent and counted; nothing beyond it.
    expect(await balances(u)).toEqual({ credits: 0n, usage: credits });
    await expectLedgerHolds(stack.server, u.userId);

    await redeemTopUp(u, 0.1);
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await curl(['-x', stack.proxyUrl, '-U', `${u.username()}:${u.proxyPassword}`, `${target.url}/hello`])).status;
    }
    expect(status).toBe(200);
    await stack.gateway.flush();
    await expectLedgerHolds(stack.server, u.userId);
  });

  it('spends an upload against the balance too', async () => {
    const credits = 2n * BigInt(MiB);
    const u = await userWithCredits(stack.server, credits);
    const up = await tunnel(u);
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024, 1);
    up.socket.on('error', () => undefined);
    const upClosed = closed(up.socket);
    up.socket.write(`POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: ${8 * MiB}\r\n\r\n`);
    const pump = () => {
      while (!up.socket.destroyed && sent < 8 * MiB) {
        sent += chunk.length;
        if (!up.socket.write(chunk)) return void up.socket.once('drain', pump);
      }
    };
    pump();
    await upClosed;
    await stack.gateway.flush();
    const b = await balances(u);
    expect(b.credits).toBe(0n);
    expect(b.usage).toBe(credits);
    await expectLedgerHolds(stack.server, u.userId);
  });
});
