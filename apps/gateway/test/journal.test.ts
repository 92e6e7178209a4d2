import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { connectionOfLogRow, gatewayConnectionRow, gatewayLogRow, gatewayLogSession } from '@proxyhub/core';
import type { Backend } from '../src/backend';
import type { Session } from '../src/authenticator';
import { encodeRecord, type RowBatch } from '../src/connection-log/row-batch';
import { UsageJournal } from '../src/report/journal';
import { replayUsageJournal } from '../src/report/replay';
import { createMeter } from '../src/report/outbox';
import { silentLogger } from '../src/log';
import { DEFAULT_METER_OPTIONS, DOWN, UP, type Meter } from '../src/meter';
import { usageTag } from '../src/usage-parts';
import { RowWriter } from '../src/connection-log/row-writer';

type Report = Parameters<Backend['report']>[0];

/** A server stand-in that applies each (gateway, seq) once, and can be down. */
function fakeServer() {
  const applied = new Map<string, Report>();
  let leases = 0;
  const s = {
    down: false,
    calls: 0,
    /** Reports with records this says no to are refused as bad input (a row the server's schema refuses). */
    refuseRecords: (_r: Report) => false,
    /** Unreachable right after such a refusal. */
    downAfterRefusal: false,
    applied,
    backend: {
      authorize: () => Promise.reject(new Error('unused')),
      authorizeAddress: () => Promise.reject(new Error('unused')),
      reserveLease: async (i) => ({
        leaseId: `00000000-0000-4000-8000-${String(++leases).padStart(12, '0')}`,
        grantedBytes: BigInt(i.bytes),
        outcome: 'granted' as const,
      }),
      report: async (r) => {
        s.calls += 1;
        if (s.down) throw new Error('ECONNREFUSED');
        if (r.rows?.length && s.refuseRecords(r)) {
          s.down = s.downAfterRefusal;
          throw TRPCClientError.from({ error: { code: -32600, message: 'Input refused', data: { code: 'BAD_REQUEST', httpStatus: 400 } } });
        }
        const key = `${r.gatewayId}/${r.seq}`;
        if (applied.has(key)) return { applied: false, dropped: [] };
        applied.set(key, structuredClone(r));
        return { applied: true, dropped: [] };
      },
      releaseLeases: async () => ({ released: 0, returnedBytes: 0n }),
      upstreams: async () => ({ upstreams: [] }),
      heartbeat: async () => ({ ok: true as const }),
    } satisfies Backend,
    /** Bytes billed per lease over every report applied once. */
    billed() {
      const per = new Map<string, number>();
      for (const r of applied.values()) for (const i of r.items) per.set(i.leaseId, (per.get(i.leaseId) ?? 0) + i.bytesUp + i.bytesDown);
      return per;
    },
  };
  return s;
}

/** An upstream pool's id, as the server names them. */
const POOL_ID = '0b6f3a8e-6d2c-4b0f-9a51-3c1d2e4f5a6b';

const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

function meterWith(server: ReturnType<typeof fakeServer>, journal: UsageJournal) {
  return createMeter({
    ...DEFAULT_METER_OPTIONS,
    initialLeaseBytes: 100_000,
    minLeaseBytes: 100_000,
    journalBytes: 1000,
    gatewayId: 'gw-j',
    backend: server.backend,
    logger: silentLogger,
    journal,
  });
}

describe('usage journal', () => {
  it('a gateway that dies with reports unacknowledged bills every journaled byte once on its next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-journal-'));
    const server = fakeServer();
    const first = meterWith(server, UsageJournal.open(dir, 'gw-j', silentLogger));
    const acc = first.account('acc-1', 'normal_proxy');
    await acc.ensure(1);
    acc.countSession();
    acc.spend(3000, DOWN);
    acc.spend(500, UP);
    await first.flush(); // applied and acknowledged
    acc.spend(4000, DOWN);
    server.down = true;
    await expect(first.flush()).rejects.toThrow(); // journaled, sent, never acknowledged
    const unacknowledged = [...server.applied.keys()].length;
    acc.spend(2500, DOWN); // past journalBytes: written at once, no report carries it
    // kill -9 here: no close(), no final report.

    server.down = false;
    const journal = UsageJournal.open(dir, 'gw-j', silentLogger);
    const { reports, unreported } = journal.outstanding();
    expect(reports).toHaveLength(1);
    expect(reports[0]!.items).toEqual([expect.objectContaining({ bytesDown: 4000, bytesUp: 0 })]);
    expect(unreported).toEqual([expect.objectContaining({ bytesDown: 2500, release: true })]);
    await replayUsageJournal(journal, server.backend, silentLogger);
    expect(server.applied.size).toBe(unacknowledged + 2);
    expect(total(server.billed())).toBe(3000 + 500 + 4000 + 2500);

    // Replayed again (the acknowledgements lost in another crash): the server ignores the repeats.
    const again = UsageJournal.open(dir, 'gw-j', silentLogger);
    expect(again.outstanding()).toEqual({ reports: [], unreported: [] });
    // A new run numbers its reports above anything journaled.
    const next = meterWith(server, again);
    const acc2 = next.account('acc-1', 'normal_proxy');
    await acc2.ensure(1);
    acc2.spend(10, DOWN);
    await next.flush();
    const seqs = [...server.applied.values()].map((r) => r.seq);
    expect(seqs.at(-1)).toBe(Math.max(...seqs));
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  it('an unacknowledged report keeps its split by location, protocol and upstream across a crash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-journal-'));
    const server = fakeServer();
    const meter = meterWith(server, UsageJournal.open(dir, 'gw-p', silentLogger));
    const acc = meter.account('acc-p', 'normal_proxy');
    await acc.ensure(1);
    const us = usageTag('connect', { country: 'US', state: 'CA', city: 'LOSANGELES' }, POOL_ID);
    const de = usageTag('socks5', { country: 'DE' });
    acc.countSession(us);
    acc.spend(300, UP, us);
    acc.spend(5000, DOWN, us);
    acc.countSession(de);
    acc.spend(7000, DOWN, de);
    server.down = true;
    await expect(meter.flush()).rejects.toThrow();
    // kill -9: the next start replays the report from the journal, parts included.
    server.down = false;
    const journal = UsageJournal.open(dir, 'gw-p', silentLogger);
    await replayUsageJournal(journal, server.backend, silentLogger);
    const items = [...server.applied.values()].flatMap((r) => r.items);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ bytesUp: 300, bytesDown: 12_000, sessions: 2 });
    expect(items[0]!.parts).toEqual([
      { protocol: 'connect', country: 'US', state: 'CA', city: 'LOSANGELES', upstreamId: POOL_ID, bytesUp: 300, bytesDown: 5000, sessions: 1 },
      { protocol: 'socks5', country: 'DE', state: '', city: '', upstreamId: '', bytesUp: 0, bytesDown: 7000, sessions: 1 },
    ]);
  });

  it('parts already reported are not reported again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-journal-'));
    const server = fakeServer();
    const meter = meterWith(server, UsageJournal.open(dir, 'gw-q', silentLogger));
    const acc = meter.account('acc-q', 'normal_proxy');
    await acc.ensure(1);
    const fr = usageTag('http', { country: 'FR' });
    acc.spend(1000, DOWN, fr);
    await meter.flush();
    acc.spend(10, DOWN, fr);
    await meter.flush();
    const reports = [...server.applied.values()].filter((r) => r.items.length);
    expect(reports.map((r) => r.items[0]!.parts)).toEqual([
      [{ protocol: 'http', country: 'FR', state: '', city: '', upstreamId: '', bytesUp: 0, bytesDown: 1000, sessions: 0 }],
      [{ protocol: 'http', country: 'FR', state: '', city: '', upstreamId: '', bytesUp: 0, bytesDown: 10, sessions: 0 }],
    ]);
  });

  it('a report that did reach the server before the crash is resent under its seq and counted once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-journal-'));
    const server = fakeServer();
    const journal = UsageJournal.open(dir, 'gw-x', silentLogger);
    journal.usage('lease-a', 0, 7000, 1);
    const items = [{ leaseId: 'lease-a', bytesUp: 0, bytesDown: 7000, sessions: 1, release: false }];
    await journal.report(42, items);
    await server.backend.report({ gatewayId: 'gw-x', seq: 42, items }); // applied; the "a" line never written
    server.down = true;
    const later = UsageJournal.open(dir, 'gw-x', silentLogger);
    const replay = replayUsageJournal(later, server.backend, silentLogger);
    await new Promise((r) => setTimeout(r, 600));
    expect(server.calls).toBeGreaterThan(1); // retried while the server is away
    server.down = false;
    await replay;
    expect(total(server.billed())).toBe(7000);
    expect(later.lastSeq).toBe(42);
  });

  it('skips a line torn by a crash and compacts to what is outstanding', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-journal-'));
    const j = UsageJournal.open(dir, 'gw-t', silentLogger);
    for (let i = 0; i < 100; i++) j.usage(`lease-${i % 3}`, 1, 10, 0);
    await j.report(7, [{ leaseId: 'lease-0', bytesUp: 34, bytesDown: 340, sessions: 0, release: false }]);
    await j.report(8, [{ leaseId: 'lease-1', bytesUp: 33, bytesDown: 330, sessions: 0, release: false }]);
    j.acknowledged(7);
    await j.sync();
    appendFileSync(j.path, '{"u":"lease-2","up":5,"d'); // the process died mid-append
    const reopened = UsageJournal.open(dir, 'gw-t', silentLogger);
    const state = reopened.outstanding();
    expect(state.reports).toEqual([{ seq: 8, items: [expect.objectContaining({ leaseId: 'lease-1', bytesDown: 330 })] }]);
    expect(state.unreported).toEqual([expect.objectContaining({ leaseId: 'lease-2', bytesUp: 33, bytesDown: 330 })]);
    // Opening rewrote it with only that state; appends go on after a clean line end.
    expect(readFileSync(reopened.path, 'utf8').split('\n').filter(Boolean)).toHaveLength(4);
    reopened.usage('lease-2', 1, 1, 0);
    reopened.compact();
    expect(UsageJournal.open(dir, 'gw-t', silentLogger).outstanding().unreported).toEqual([
      expect.objectContaining({ leaseId: 'lease-2', bytesUp: 34, bytesDown: 331 }),
    ]);
  });

  it('writes an account past journalBytes at once, and everything else within the journal interval', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-journal-'));
    const server = fakeServer();
    const journal = UsageJournal.open(dir, 'gw-w', silentLogger);
    const m = createMeter({
      ...DEFAULT_METER_OPTIONS,
      // One lease holds the fast account's 3 MiB, so the journal's 1 MiB marks fall on spends.
      initialLeaseBytes: 16 * 1024 * 1024,
      journalBytes: 1024 * 1024,
      journalIntervalMs: 50,
      gatewayId: 'gw-w',
      backend: server.backend,
      logger: silentLogger,
      journal,
    });
    const fast = m.account('fast', 'normal_proxy');
    const slow = m.account('slow', 'normal_proxy');
    await fast.ensure(1);
    await slow.ensure(1);
    for (let i = 0; i < 48; i++) fast.spend(64 * 1024, DOWN); // 3 MiB
    slow.spend(1000, DOWN);
    const onDisk = () => total(readUsage(journal.path));
    expect(onDisk()).toBe(3 * 1024 * 1024); // the slow account's 1000 bytes wait for the tick
    m.start();
    await new Promise((r) => setTimeout(r, 120));
    expect(onDisk()).toBe(3 * 1024 * 1024 + 1000);
    await m.close();
  });
});

/** Usage per lease as the journal file holds it (reading it, not replaying it). */
function readUsage(path: string): Map<string, number> {
  const per = new Map<string, number>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.startsWith('{"u"')) continue;
    const u = JSON.parse(line) as { u: string; up: number; dn: number };
    per.set(u.u, (per.get(u.u) ?? 0) + u.up + u.dn);
  }
  return per;
}

/** A connection record as the server stores it; n numbers it. */
const rec = (n: number) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  startedAt: 1_700_000_000_000 + n,
  endedAt: 1_700_000_001_000 + n,
  protocol: 'connect' as const,
  target: 'example.com:443',
  proxyUserId: 'abc',
  proxyAccountId: '00000000-0000-4000-8000-00000000aaaa',
  country: 'US',
  state: '',
  city: '',
  session: 'rotating',
  bytesUp: n,
  bytesDown: n,
  billedBytes: 2 * n,
  outcome: 'ok' as const,
  reason: '',
  exitIp: '',
  upstreamId: '',
});

/** The meter's journal interval passes: what ended since is written (the meter seals its records then). */
const journalTick = () => new Promise((r) => setTimeout(r, DEFAULT_METER_OPTIONS.journalIntervalMs + 100));

/** The records every report the server applied carried, as the server reads them. */
const storedRecords = (server: ReturnType<typeof fakeServer>) => [...server.applied.values()].flatMap((r) => parsedRows(r.rows ?? []));
/** The rows of batches, parsed as the server parses them: a compact row gets an id as it is stored. */
const parsedRows = (batches: readonly RowBatch[]) =>
  batches.flatMap((b) => {
    const rows = JSON.parse(`[${Buffer.from(b.bytes).toString()}]`) as unknown[];
    if (!b.sessions) return rows.map((row) => gatewayConnectionRow.parse(row));
    const sessions = new Map(
      gatewayLogSession
        .array()
        .parse(JSON.parse(`[${Buffer.from(b.sessions).toString()}]`))
        .map((s) => [s[0], s]),
    );
    return gatewayLogRow
      .array()
      .parse(rows)
      .map((r) => connectionOfLogRow(randomUUID(), sessions.get(r[4])!, r));
  });
const ids = (batches: readonly RowBatch[] = []) => parsedRows(batches).map((r) => r.id);
const targets = (batches: readonly RowBatch[] = []) => parsedRows(batches).map((r) => r.target);

const session = {
  ok: true,
  credKey: 'k',
  account: { id: '00000000-0000-4000-8000-00000000aaaa' },
  parts: { proxyUserId: 'abc', location: { country: 'US' }, durationMinutes: 0, token: '' },
} as unknown as Session;
/** Connection n (to host-n.example:443, n bytes each way) ends: the meter writes its row as the gateway does. */
const ended = (meter: Meter, n: number) =>
  meter.recordRow(
    {
      startedAt: 1_700_000_000_000 + n,
      protocol: 'connect',
      target: `host-${n}.example:443`,
      session,
      baseUp: 0,
      baseDown: 0,
      exitIp: '',
      upstreamId: '',
      seq: n,
      connectMs: n,
    },
    n,
    n,
    'ok',
    '',
  );

describe('connection records in the journal', () => {
  it('survive a crash: each is stored once, whether its report reached the server or not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const server = fakeServer();
    const journal = UsageJournal.open(dir, 'gw-j', silentLogger);
    const meter = meterWith(server, journal);
    ended(meter, 1);
    await meter.flush(); // delivered and acknowledged
    ended(meter, 2);
    server.down = true;
    await meter.flush().catch(() => undefined); // journaled with its report, never acknowledged
    server.down = false;
    ended(meter, 3); // ended after the last report: only its own journal line
    await journalTick();
    // kill -9 here: the next start delivers what the journal holds.
    const again = UsageJournal.open(dir, 'gw-j', silentLogger);
    await replayUsageJournal(again, server.backend, silentLogger);
    const stored = storedRecords(server);
    expect(stored.map((r) => [r.target, r.bytesUp, r.billedBytes]).sort()).toEqual([1, 2, 3].map((n) => [`host-${n}.example:443`, n, 2 * n]));
    expect(new Set(stored.map((r) => r.id)).size).toBe(3);
    // Nothing is left for a later start to send again.
    const third = UsageJournal.open(dir, 'gw-j', silentLogger);
    expect(third.outstanding()).toEqual({ reports: [], unreported: [] });
  });

  it('keep their reports through a compaction: an unacknowledged report carries the same records after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const server = fakeServer();
    const journal = UsageJournal.open(dir, 'gw-k', silentLogger);
    const meter = meterWith(server, journal);
    server.down = true;
    for (const n of [1, 2]) ended(meter, n);
    await meter.flush().catch(() => undefined); // report of 1 and 2, journaled, not acknowledged
    ended(meter, 3); // no report yet
    await journalTick();
    journal.compact();
    const again = UsageJournal.open(dir, 'gw-k', silentLogger);
    const { reports, connections } = again.outstanding();
    expect(reports.map((r) => targets(r.connections))).toEqual([['host-1.example:443', 'host-2.example:443']]);
    expect(targets(connections)).toEqual(['host-3.example:443']);
    server.down = false;
    await replayUsageJournal(again, server.backend, silentLogger);
    expect(storedRecords(server).map((r) => r.target)).toEqual(['host-1.example:443', 'host-2.example:443', 'host-3.example:443']);
  });

  it('keep every batch when one write or compaction holds more of them than a single writev takes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const journal = UsageJournal.open(dir, 'gw-many', silentLogger);
    // 1,500 batches of one row: a "k" line of about 3,000 parts (IOV_MAX is 1,024).
    const batch = (n: number): RowBatch => ({ bytes: Buffer.from(encodeRecord(rec(n))), count: 1 });
    for (let n = 1; n <= 1500; n++) journal.connections(batch(n));
    journal.write();
    const expected = Array.from({ length: 1500 }, (_, i) => rec(i + 1).id);
    expect(ids(UsageJournal.open(dir, 'gw-many', silentLogger).outstanding().connections)).toEqual(expected);
    journal.compact();
    expect(ids(UsageJournal.open(dir, 'gw-many', silentLogger).outstanding().connections)).toEqual(expected);
    await journal.close();
  });

  it('read compact rows back in order among rows with every field, through a compaction, as the records they were', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const journal = UsageJournal.open(dir, 'gw-mixed', silentLogger);
    const full = (n: number): RowBatch => ({ bytes: Buffer.from(encodeRecord(rec(n))), count: 1 });
    const writer = new RowWriter();
    const compact = (ns: number[]): RowBatch => {
      for (const n of ns)
        writer.row(
          {
            startedAt: 1_700_000_000_000 + n,
            protocol: 'connect',
            target: `host-${n}.example:443`,
            session,
            baseUp: 0,
            baseDown: 0,
            exitIp: '',
            upstreamId: '',
            seq: n,
            connectMs: null,
          },
          n,
          n,
          'ok',
          '',
        );
      return writer.seal()!;
    };
    journal.connections(full(1));
    journal.connections(compact([2, 3]));
    journal.write();
    journal.connections(compact([4]));
    journal.connections(full(5));
    journal.write();
    const id = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const expected = [1, 2, 3, 4, 5].map((n) =>
      n === 1 || n === 5 ? rec(n) : { ...rec(n), id, target: `host-${n}.example:443`, endedAt: expect.any(Number) as number },
    );
    const read = () => parsedRows(UsageJournal.open(dir, 'gw-mixed', silentLogger).outstanding().connections ?? []);
    expect(read()).toEqual(expected);
    journal.compact();
    expect(read()).toEqual(expected);
    await journal.close();
  });

  it('deliver what a long outage left in reports the server takes: at most 10,000 records each, every one delivered once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const journal = UsageJournal.open(dir, 'gw-long', silentLogger);
    const writer = new RowWriter();
    for (let n = 0; n < 25_000; n++) {
      writer.row(
        {
          startedAt: 1_700_000_000_000 + n,
          protocol: 'http',
          target: `host-${n}.example:80`,
          session,
          baseUp: 0,
          baseDown: 0,
          exitIp: '',
          upstreamId: '',
          seq: n,
          connectMs: 5,
        },
        1,
        1,
        'ok',
        '',
      );
      if (writer.count === 2000) journal.connections(writer.seal()!);
    }
    journal.connections(writer.seal()!);
    journal.write();
    // kill -9: the next start finds 25,000 records no report carried.
    const server = fakeServer();
    await replayUsageJournal(UsageJournal.open(dir, 'gw-long', silentLogger), server.backend, silentLogger);
    const reports = [...server.applied.values()];
    expect(reports.map((r) => parsedRows(r.rows ?? []).length)).toEqual([10_000, 10_000, 5_000]);
    const stored = storedRecords(server).map((r) => r.target);
    expect(new Set(stored).size).toBe(25_000);
    expect(stored[24_999]).toBe('host-24999.example:80');
  });

  it('a report whose records the server refuses goes at once without them, its usage billed; later ones carry theirs; a restart resends it so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const server = fakeServer();
    server.refuseRecords = (r) => targets(r.rows).includes('host-13.example:443');
    const journal = UsageJournal.open(dir, 'gw-refused', silentLogger);
    const meter = meterWith(server, journal);
    const acc = meter.account('acc-1', 'normal_proxy');
    await acc.ensure(1);
    acc.spend(700, DOWN);
    for (const n of [1, 13, 2]) ended(meter, n);
    await meter.flush();
    const [first] = [...server.applied.values()];
    expect(first!.rows ?? []).toEqual([]);
    expect(total(server.billed())).toBe(700);
    ended(meter, 3);
    await meter.flush();
    expect(storedRecords(server).map((r) => r.target)).toEqual(['host-3.example:443']);

    // Refused, then the server is gone before the report without records arrives; kill -9.
    server.downAfterRefusal = true;
    acc.spend(300, DOWN);
    for (const n of [4, 13]) ended(meter, n);
    await expect(meter.flush()).rejects.toThrow('ECONNREFUSED');
    server.down = false;
    const again = UsageJournal.open(dir, 'gw-refused', silentLogger);
    expect(again.outstanding().reports.map((r) => [r.items.map((i) => i.bytesDown), r.connections ?? []])).toEqual([[[300], []]]);
    await replayUsageJournal(again, server.backend, silentLogger);
    expect(total(server.billed())).toBe(1000);
    expect(storedRecords(server).map((r) => r.target)).toEqual(['host-3.example:443']);

    // Usage and records no report carried, replayed by the next start: refused with the records, billed without them.
    server.downAfterRefusal = false;
    const next = meterWith(server, again);
    const acc2 = next.account('acc-1', 'normal_proxy');
    await acc2.ensure(1);
    acc2.spend(50, DOWN);
    ended(next, 13);
    await journalTick();
    await replayUsageJournal(UsageJournal.open(dir, 'gw-refused', silentLogger), server.backend, silentLogger);
    expect(total(server.billed())).toBe(1050);
    expect(storedRecords(server).map((r) => r.target)).toEqual(['host-3.example:443']);
  });

  it("deliver what an earlier version's journal holds (records by name, reports naming them by id)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const lines = [
      { g: 'gw-old', q: 5 },
      { c: rec(1) },
      { c: rec(2) },
      { c: rec(3) },
      { r: 5, i: [['00000000-0000-4000-8000-000000000001', 10, 20, 1, 0]], c: [rec(1).id, rec(3).id] },
    ];
    writeFileSync(join(dir, 'usage-gw-old.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const server = fakeServer();
    const journal = UsageJournal.open(dir, 'gw-old', silentLogger);
    await replayUsageJournal(journal, server.backend, silentLogger);
    const [resent, rest] = [...server.applied.values()];
    expect(resent!.seq).toBe(5);
    expect(parsedRows(resent!.rows ?? [])).toEqual([rec(1), rec(3)]);
    expect(parsedRows(rest!.rows ?? [])).toEqual([rec(2)]);
    expect(UsageJournal.open(dir, 'gw-old', silentLogger).outstanding()).toEqual({ reports: [], unreported: [] });
  });
});
