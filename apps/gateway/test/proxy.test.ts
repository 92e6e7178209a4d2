import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SocksClient } from 'socks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToGb } from '@proxyhub/core';
import { basic, balances, curl, expectLedgerHolds, hourlyUsage, INTERNAL_KEY, startStack, startTarget, userWithCredits, type Stack } from './helpers';

const MiB = 1024 * 1024;
let stack: Stack;
let target: Awaited<ReturnType<typeof startTarget>>;

beforeAll(async () => {
  stack = await startStack();
  target = await startTarget();
});
afterAll(async () => {
  await stack?.close();
  await target?.close();
});

/** Reads a whole HTTP/1.1 response with Connection: close from a socket. */
function readAll(socket: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    socket.on('data', (d: Buffer) => parts.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(parts)));
  });
}

describe('proxying through the gateway', () => {
  it('serves curl over HTTP forward, CONNECT and SOCKS5 with the generated username', async () => {
    const u = await userWithCredits(stack.server, 100n * BigInt(MiB));
    const name = u.username({ country: 'US', state: 'CA', city: 'LOSANGELES' }, 60);
    const forward = await curl(['-x', stack.proxyUrl, '-U', `${name}:${u.proxyPassword}`, `${target.url}/hello`]);
    expect(forward).toMatchObject({ code: 0, status: 200, stdout: 'hello from target\n' });
    const tunnel = await curl(['-p', '-x', stack.proxyUrl, '-U', `${name}:${u.proxyPassword}`, `${target.url}/hello`]);
    expect(tunnel).toMatchObject({ code: 0, status: 200, stdout: 'hello from target\n' });
    const socks = await curl(['-x', `socks5h://${name}:${u.proxyPassword}@127.0.0.1:${stack.port}`, `${target.url}/hello`]);
    expect(socks).toMatchObject({ code: 0, status: 200, stdout: 'hello from target\n' });
  });

  it('serves Node clients: a raw CONNECT tunnel and the socks package', async () => {
    const u = await userWithCredits(stack.server, 100n * BigInt(MiB));
    const name = u.username();
    const request = Buffer.from(`GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);

    const raw = connect({ host: '127.0.0.1', port: stack.port });
    raw.write(`CONNECT 127.0.0.1:${target.port} HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nProxy-Authorization: ${basic(name, u.proxyPassword)}\r\n\r\n`);
    raw.write(request); // sent before the 200: the gateway keeps it for the target
    const rawReply = (await readAll(raw)).toString();
    expect(rawReply).toMatch(/^HTTP\/1\.1 200 Connection Established\r\nX-ProxyHub-Connection: [0-9a-f]{32}\r\n\r\nHTTP\/1\.1 200 OK/);
    expect(rawReply).toContain('hello from target');

    const { socket } = await SocksClient.createConnection({
      proxy: { host: '127.0.0.1', port: stack.port, type: 5, userId: name, password: u.proxyPassword },
      command: 'connect',
      destination: { host: '127.0.0.1', port: target.port },
    });
    socket.write(request);
    const socksReply = (await readAll(socket)).toString();
    expect(socksReply).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(socksReply).toContain('hello from target');
  });

  it('meters uploads and downloads of several MiB exactly, per direction, over all three protocols', async () => {
    const u = await userWithCredits(stack.server, 1024n * BigInt(MiB));
    const auth = `${u.username()}:${u.proxyPassword}`;
    const dir = mkdtempSync(join(tmpdir(), 'gw-upload-'));
    const file = join(dir, 'upload.bin');
    writeFileSync(file, Buffer.alloc(3 * MiB + 12345, 7));
    const before = target.closed.length;
    const via = [
      ['-x', stack.proxyUrl, '-U', auth],
      ['-p', '-x', stack.proxyUrl, '-U', auth],
      ['-x', `socks5h://${auth}@127.0.0.1:${stack.port}`],
    ];
    for (const v of via) {
      const down = await curl([...v, '-o', '/dev/null', `${target.url}/download?bytes=${5 * MiB + 777}`]);
      expect(down).toMatchObject({ code: 0, status: 200 });
      const up = await curl([...v, '-H', 'Expect:', '-H', 'Content-Type: application/octet-stream', '--data-binary', `@${file}`, `${target.url}/upload`]);
      expect(up).toMatchObject({ code: 0, status: 200 });
      expect(JSON.parse(up.stdout)).toEqual({ received: 3 * MiB + 12345 });
    }
    const conns = (await target.closedCount(before + 6)).slice(before);
    const targetRead = conns.reduce((n, c) => n + c.bytesRead, 0);
    const targetWritten = conns.reduce((n, c) => n + c.bytesWritten, 0);
    await stack.gateway.flush();
    const usage = await hourlyUsage(stack.server, u.userId);
    // What the target read is exactly what was counted up; what it wrote, exactly what was counted down.
    expect(usage).toEqual({ up: targetRead, down: targetWritten, sessions: 6 });
    expect(targetWritten).toBeGreaterThan(3 * 5 * MiB);
    expect(targetRead).toBeGreaterThan(3 * 3 * MiB);
    const b = await balances(u);
    expect(b.usage).toBe(BigInt(targetRead + targetWritten));
    const ledger = await expectLedgerHolds(stack.server, u.userId);
    expect(ledger.credits + ledger.leased).toBe(1024n * BigInt(MiB) - b.usage);
  });

  it('shows usage to the user and the admin: Total Usage, Remaining Data, global sessions', async () => {
    const admin = stack.server.client({ origin: null });
    admin.bearer = INTERNAL_KEY;
    type Stats = { stats: Array<{ usage_type: string; total_gb: number; total_sessions: number; last_updated: string | null }> };
    const before = (await admin.get<Stats>('/admin/usage/global')).body.stats.find((s) => s.usage_type === 'normal_proxy')!;
    const u = await userWithCredits(stack.server, 200n * BigInt(MiB));
    for (let i = 0; i < 3; i++) {
      const r = await curl([
        '-p',
        '-x',
        stack.proxyUrl,
        '-U',
        `${u.username()}:${u.proxyPassword}`,
        '-o',
        '/dev/null',
        `${target.url}/download?bytes=${50 * MiB}`,
      ]);
      expect(r.status).toBe(200);
    }
    await stack.gateway.flush();
    const global = await admin.get<Stats>('/admin/usage/global');
    expect(global.status).toBe(200);
    expect(global.body.stats.map((s) => s.usage_type).sort()).toEqual(['normal_proxy', 'shop_proxy_admin', 'shop_proxy_regular']);
    const after = global.body.stats.find((s) => s.usage_type === 'normal_proxy')!;
    expect(after.total_sessions - before.total_sessions).toBe(3);
    expect(after.total_gb - before.total_gb).toBeGreaterThanOrEqual(0.14); // 150 MiB = 0.146 GB, truncated
    expect(after.last_updated).not.toBeNull();
    // The user's own view: Total Usage grew by what was relayed, Remaining Data fell by the same.
    const b = await balances(u);
    expect(b.usage).toBeGreaterThan(150n * BigInt(MiB));
    const ledger = await expectLedgerHolds(stack.server, u.userId);
    // Remaining Data counts the bytes a gateway still holds in an open lease as the user's: while
    // the lease is out, remaining + used is still exactly what was bought.
    expect(ledger.leased).toBeGreaterThan(0n);
    expect(b.credits + b.usage).toBe(200n * BigInt(MiB));
    // The admin's user list shows the same remaining figure.
    const list = await admin.get<{ users: Array<{ id: string; creditsGB: number }> }>('/admin/users');
    expect(list.body.users.find((x) => x.id === u.userId)?.creditsGB).toBe(bytesToGb(b.credits));
  });
});
