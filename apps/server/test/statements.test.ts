/**
 * Signed daily statements: per proxy account and UTC day, sums of the connection log as gateways
 * reported it, the SHA-256 of the day's CSV, a chain, an Ed25519 signature; and the verifier a
 * customer runs (pnpm verify-statement) passing on what we serve and failing on any changed byte.
 */
import { execFile } from 'node:child_process';
import { createPublicKey, randomUUID, verify } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import canonicalize from 'canonicalize';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConnectionRecord, Statement } from '@proxyhub/core';
import { webhookDeliveries } from '@proxyhub/db';
import { addCredits, expectLedgerOk, internalClient } from '@proxyhub/testing';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';
// @ts-expect-error: a plain script without types
import { publicKeyFrom, verifyStatement } from '../scripts/verify-statement.mjs';

const SCRIPT = fileURLToPath(new URL('../scripts/verify-statement.mjs', import.meta.url));
const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS + offset * DAY_MS).toISOString().slice(0, 10);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await expectLedgerOk(server);
  await server.close();
});

let seq = 0;
/**
 * Connections of the user's main account as a gateway reports them, with the usage that bills them:
 * `spec` per connection (day offset, country, bytes, outcome); failed ones are billed 0.
 */
async function report(
  user: { proxyUserId: string; proxyPassword: string },
  spec: Array<{ day: number; country: string; up: number; down: number; failed?: boolean }>,
) {
  const gateway = internalClient(server).gateway;
  const { account } = await gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
  if (!account.ok) throw new Error(account.message);
  const gatewayId = `stmt-gw-${user.proxyUserId}`;
  const lease = await gateway.reserveLease.mutate({ gatewayId, proxyAccountId: account.proxyAccountId, bytes: 10_000_000 });
  const connections: GatewayConnectionRecord[] = spec.map((c, i) => {
    const startedAt = Math.min(Date.now() - 1000, Math.floor(Date.now() / DAY_MS) * DAY_MS + c.day * DAY_MS + 3_600_000 + i * 1000);
    return {
      id: randomUUID(),
      startedAt,
      endedAt: startedAt + 500,
      protocol: 'connect',
      target: `example-${i}.com:443`,
      proxyUserId: user.proxyUserId,
      proxyAccountId: account.proxyAccountId,
      country: c.country,
      state: '',
      city: '',
      session: 'rotating',
      bytesUp: c.failed ? 0 : c.up,
      bytesDown: c.failed ? 0 : c.down,
      billedBytes: c.failed ? 0 : c.up + c.down,
      outcome: c.failed ? 'target_unreachable' : 'ok',
      reason: c.failed ? 'connect ECONNREFUSED' : '',
      exitIp: '',
    };
  });
  const billedUp = connections.reduce((s, c) => s + c.bytesUp, 0);
  const billedDown = connections.reduce((s, c) => s + c.bytesDown, 0);
  seq += 1;
  const r = await gateway.report.mutate({
    gatewayId,
    seq,
    items: [{ leaseId: lease.leaseId!, bytesUp: billedUp, bytesDown: billedDown, sessions: connections.length, release: true }],
    connections,
  });
  expect(r.applied).toBe(true);
  return account.proxyAccountId;
}

async function getStatements(client: HttpClient, path: string) {
  const r = await client.get<{ statements: Statement[] }>(path);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.statements;
}

/** The CSV's exact bytes. */
async function csvBytes(client: HttpClient, date: string, query = ''): Promise<{ status: number; bytes: Buffer }> {
  const res = await fetch(`${client.baseUrl}/api/statements/${date}/connections.csv${query}`, { headers: client.ambientHeaders() });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

const run = promisify(execFile);
async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run(process.execPath, [SCRIPT, ...args], { env: { ...process.env, ...env } });
    return { code: 0, out: r.stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, out: e.stdout };
  }
}

describe('signed daily statements', () => {
  let client: HttpClient;
  let list: Statement[];
  let publicKey: string;
  const dir = mkdtempSync(join(tmpdir(), 'statements-'));

  beforeAll(async () => {
    const u = await signedInUser(server);
    client = u.client;
    await addCredits(server, u.user.id, 1_000_000_000n);
    await client.post('/api/webhooks', { url: 'http://127.0.0.1:1/hook', events: ['statement.ready'] });
    await report(u.user, [
      { day: -3, country: 'US', up: 1000, down: 50_000 },
      { day: -3, country: 'DE', up: 200, down: 3000 },
      { day: -3, country: 'US', up: 0, down: 0, failed: true },
      { day: -2, country: 'FR', up: 10, down: 90 },
      { day: 0, country: 'US', up: 7, down: 70 },
    ]);
    const key = await fetch(`${server.url}/api/statements/key`);
    expect(key.status).toBe(200);
    const body = (await key.json()) as { algorithm: string; publicKey: string };
    expect(body.algorithm).toBe('Ed25519');
    publicKey = body.publicKey;
    list = await getStatements(client, `/api/statements?from=${day(-5)}&to=${day(0)}`);
  });

  it('one per day with traffic, totals and countries equal to the log, final for past days and provisional today', async () => {
    expect(list.map((s) => [s.date, s.final])).toEqual([
      [day(0), false],
      [day(-2), true],
      [day(-3), true],
    ]);
    const first = list[2]!;
    expect(first.totals).toEqual({ bytes: String(51_000 + 3200), billedBytes: String(51_000 + 3200), connections: 3 });
    expect(first.byCountry).toEqual([
      { country: 'DE', bytes: '3200', billedBytes: '3200', connections: 1 },
      { country: 'US', bytes: '51000', billedBytes: '51000', connections: 2 },
    ]);
    // The log's own sums over the same day, and what the user was billed over all days.
    const log = await client.get<{ connections: Array<{ billedBytes: string }> }>(`/api/connections?from=${day(-3)}&to=${day(-2)}`);
    expect(log.body.connections.reduce((s, c) => s + BigInt(c.billedBytes), 0n)).toBe(BigInt(first.totals.billedBytes));
    const me = await client.get<{ user: { total_usage_bytes: number } }>('/auth/user');
    expect(BigInt(me.body.user.total_usage_bytes)).toBe(list.reduce((s, x) => s + BigInt(x.totals.billedBytes), 0n));
    // One day's call answers the same statement.
    expect(await getStatements(client, `/api/statements/${day(-3)}`)).toEqual([first]);
    expect(await getStatements(client, `/api/statements/${day(-4)}`)).toEqual([]);
  });

  it('signatures verify with the public key; each names the SHA-256 of the one before; the CSV is the digest', async () => {
    const key = createPublicKey(publicKey);
    for (const s of list) {
      const { signature, ...signed } = s;
      expect(verify(null, Buffer.from(canonicalize(signed)!, 'utf8'), key, Buffer.from(signature, 'base64'))).toBe(true);
    }
    const [today, second, first] = list as [Statement, Statement, Statement];
    const { createHash } = await import('node:crypto');
    const hash = (s: Statement) => createHash('sha256').update(canonicalize(s)!, 'utf8').digest('hex');
    expect(first.previous).toBeNull();
    expect(second.previous).toBe(hash(first));
    expect(today.previous).toBe(hash(second));
    const csv = await csvBytes(client, first.date);
    expect(csv.status).toBe(200);
    expect(createHash('sha256').update(csv.bytes).digest('hex')).toBe(first.connectionsDigest);
    expect(csv.bytes.toString().trim().split('\n')).toHaveLength(4);
    // Stored: asked again (another process, a restart), the chain is the same bytes.
    expect(await getStatements(client, `/api/statements?from=${day(-5)}&to=${day(-1)}`)).toEqual([second, first]);
  });

  it('statement.ready for each final statement, once', async () => {
    const rows = await server.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventType, 'statement.ready'));
    expect(rows.map((r) => (JSON.parse(r.body) as { data: Statement }).data.date).sort()).toEqual([day(-3), day(-2)]);
  });

  it('refuses bad dates and other users see none', async () => {
    expect((await client.get('/api/statements/2024-13-01')).status).toBe(400);
    expect((await client.get(`/api/statements/${day(2)}`)).body).toMatchObject({ error: 'date must not be in the future' });
    expect((await client.get(`/api/statements?from=${day(0)}&to=${day(-1)}`)).status).toBe(400);
    expect((await server.client().get(`/api/statements/${day(-3)}`)).status).toBe(401);
    const other = await signedInUser(server);
    expect(await getStatements(other.client, `/api/statements/${day(-3)}`)).toEqual([]);
    expect((await csvBytes(other.client, day(-3), `?account=${list[0]!.account.id}`)).status).toBe(404);
  });

  it('pnpm verify-statement passes on what we serve and fails on a changed byte in the JSON, the CSV or the chain', async () => {
    const [, second, first] = list as [Statement, Statement, Statement];
    const files = {
      key: join(dir, 'key.pem'),
      first: join(dir, 'first.json'),
      second: join(dir, 'second.json'),
      csv: join(dir, 'second.csv'),
    };
    const csv = (await csvBytes(client, second.date)).bytes;
    writeFileSync(files.key, publicKey);
    writeFileSync(files.first, canonicalize(first)!);
    writeFileSync(files.second, canonicalize(second)!);
    writeFileSync(files.csv, csv);
    const ok = await cli([files.second, files.csv, '--previous', files.first, '--key', files.key]);
    expect(ok.out).not.toContain('FAIL');
    expect(ok.out).toContain('OK   signature holds');
    expect(ok.out).toContain('OK   chain holds');
    expect(ok.code).toBe(0);
    // Key from the environment, a byte of the CSV changed.
    const badCsv = Buffer.from(csv);
    badCsv[badCsv.length - 3] = badCsv[badCsv.length - 3]! ^ 1;
    writeFileSync(files.csv, badCsv);
    const bad = await cli([files.second, files.csv], { STATEMENT_PUBLIC_KEY: publicKey });
    expect(bad.out).toContain('FAIL connections CSV does NOT match');
    expect(bad.code).toBe(1);

    // Every byte of the statement, of the CSV and of the previous one, changed in turn, fails.
    const key = publicKeyFrom(publicKey);
    const checks = (statement: Buffer, c: Buffer, previous: Buffer) => verifyStatement({ statement, csv: c, previous, key }) as Array<{ ok: boolean }>;
    const json = Buffer.from(canonicalize(second)!);
    const prev = Buffer.from(canonicalize(first)!);
    expect(checks(json, csv, prev).every((c) => c.ok)).toBe(true);
    const flipped = (b: Buffer, i: number) => {
      const copy = Buffer.from(b);
      // Another printable character (a flipped low bit keeps most JSON readable, so the signature decides).
      copy[i] = copy[i]! ^ 1 || 0x41;
      return copy;
    };
    for (let i = 0; i < json.length; i++)
      expect(
        checks(flipped(json, i), csv, prev).every((c) => c.ok),
        `statement byte ${i}`,
      ).toBe(false);
    for (let i = 0; i < prev.length; i++)
      expect(
        checks(json, csv, flipped(prev, i)).every((c) => c.ok),
        `previous byte ${i}`,
      ).toBe(false);
    for (let i = 0; i < csv.length; i += 7)
      expect(
        checks(json, flipped(csv, i), prev).every((c) => c.ok),
        `csv byte ${i}`,
      ).toBe(false);
  });
});
