import { CONNECT_MS_MAX, connectionOfLogRow, gatewayLogRow, gatewayReportInput } from '@proxyhub/core';
import { describe, expect, it } from 'vitest';
import type { Session } from '../authenticator';
import { CONNECTION_RUN, connectMsSince, type RecordStart } from './record';
import { RowWriter } from './row-writer';

function start(
  over: {
    target?: string;
    token?: string;
    city?: string;
    durationMinutes?: number;
    lineTest?: boolean;
    exitIp?: string;
    upstreamId?: string;
    connectMs?: number | null;
  } = {},
): RecordStart {
  const session = {
    ok: true,
    account: { id: '2b1f0c3e-5d4a-4f6b-8c7d-9e0f1a2b3c4d' },
    credKey: 'k',
    parts: {
      proxyUserId: 'u12345678',
      location: { country: 'US', state: 'CA', city: over.city ?? 'LOSANGELES' },
      durationMinutes: over.durationMinutes ?? 60,
      token: over.token ?? 'ABCD1234',
    },
    ...(over.lineTest ? { lineTest: true } : {}),
  } as unknown as Session;
  return {
    startedAt: 1_790_000_000_000,
    protocol: 'http',
    target: over.target ?? 'example.com:443',
    session,
    baseUp: 0,
    baseDown: 0,
    exitIp: over.exitIp ?? '',
    upstreamId: over.upstreamId ?? '',
    seq: 41,
    connectMs: over.connectMs === undefined ? 37 : over.connectMs,
  };
}

/** What a compact row holds (gatewayLogRow; the reference the writer's bytes are checked against). */
function rowValues(key: number, duration: number, s: RecordStart, up: number, down: number, outcome: string, reason: string): unknown[] {
  const lineTest = s.session.lineTest === true;
  const why = (lineTest ? `line test, not billed${reason ? `: ${reason}` : ''}` : reason).slice(0, 300);
  return [s.startedAt, duration, s.protocol, s.target, key, up, down, outcome, why, s.exitIp, s.upstreamId, s.seq, s.connectMs];
}

/** What a session's entry holds (gatewayLogSession) for start()'s line. */
function sessionValues(key: number, s: RecordStart): unknown[] {
  const city = s.session.parts.location?.city;
  const token = s.session.parts.durationMinutes ? s.session.parts.token : 'rotating';
  return [key, 'u12345678', '2b1f0c3e-5d4a-4f6b-8c7d-9e0f1a2b3c4d', 'US', 'CA', city, token, s.session.lineTest ? 1 : 0, CONNECTION_RUN];
}

/** The rows and sessions of a writer's batch, parsed as the report's arrays. */
function written(w: RowWriter): { rows: unknown[][]; sessions: unknown[][] } {
  const batch = w.seal();
  if (!batch) return { rows: [], sessions: [] };
  const parse = (b: Uint8Array) => JSON.parse(`[${Buffer.from(b).toString('utf8')}]`) as unknown[][];
  return { rows: parse(batch.bytes), sessions: parse(batch.sessions!) };
}

describe('connectMsSince', () => {
  it('is never negative nor more than a row may hold (a report with one bad value would lose its records)', () => {
    expect(connectMsSince(Date.now() + 5000)).toBe(0);
    expect(connectMsSince(Date.now() - 2 * CONNECT_MS_MAX)).toBe(CONNECT_MS_MAX);
    const w = new RowWriter();
    w.row(start({ connectMs: connectMsSince(0) }), 1, 1, 'ok', '');
    const row = JSON.parse(Buffer.from(w.seal()!.bytes).toString('utf8')) as unknown[];
    expect(gatewayLogRow.safeParse(row).success).toBe(true);
  });
});

describe('RowWriter', () => {
  // A row is what the journal and the report carry unchanged: the bytes of JSON.stringify of its
  // values, and, with its session's entry, a row the server's schema takes whatever the strings
  // hold, the record the server stores.
  it.each([
    ['plain values', start(), 'ok', ''],
    ['a reason with quotes, backslashes, control characters and non-ASCII', start(), 'target_unreachable', 'said "no" \\ at\ttab\nline é ü 漢 \u2028 \u007f'],
    ['a target and city that need escaping', start({ target: '[::1]:80', city: 'SÃO"PAULO\\' }), 'refused', 'x'],
    ['a rotating line test with an exit address', start({ durationMinutes: 0, lineTest: true, exitIp: '203.0.113.9' }), 'timeout', 'Timed out'],
    ['a connection through a pool upstream', start({ upstreamId: '6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e' }), 'ok', ''],
    ['a refused connection (no connect time)', start({ connectMs: null }), 'refused', 'Proxy authentication required'],
    ['a connect time over a second', start({ connectMs: 10_250 }), 'ok', ''],
    ['a lone surrogate', start({ token: 'AB\ud800CD' }), 'ok', '\udfff'],
    ['a reason over 300 characters', start(), 'cut_off', `${'é'.repeat(299)}"and more`],
  ] as const)('%s: the bytes of JSON.stringify of its values, and a valid row', (_name, s, outcome, reason) => {
    const w = new RowWriter();
    const before = Date.now();
    w.row(s, 123, 4567, outcome, reason);
    const after = Date.now();
    const batch = w.seal()!;
    const text = Buffer.from(batch.bytes).toString('utf8');
    const row = JSON.parse(text) as unknown[];
    expect(s.startedAt + (row[1] as number)).toBeGreaterThanOrEqual(before);
    expect(s.startedAt + (row[1] as number)).toBeLessThanOrEqual(after);
    expect(text).toBe(JSON.stringify(rowValues(row[4] as number, row[1] as number, s, 123, 4567, outcome, reason)));
    expect(Buffer.from(batch.sessions!).toString('utf8')).toBe(JSON.stringify(sessionValues(row[4] as number, s)));
    const report = gatewayReportInput.parse({
      gatewayId: 'gw',
      seq: 1,
      items: [],
      logSessions: JSON.parse(`[${Buffer.from(batch.sessions!).toString('utf8')}]`),
      logRows: [row],
    });
    const record = connectionOfLogRow('00000000-0000-4000-8000-000000000001', report.logSessions![0]!, report.logRows![0]!);
    expect(record).toMatchObject({
      endedAt: s.startedAt + (row[1] as number),
      proxyUserId: 'u12345678',
      bytesUp: 123,
      bytesDown: 4567,
      billedBytes: s.session.lineTest ? 0 : 4690,
      outcome,
      target: s.target,
    });
    expect(record.connectMs).toBe(s.connectMs ?? undefined);
  });

  it("a line's connections share one session entry, named once in each batch that has their rows", () => {
    const w = new RowWriter();
    const a = start({ city: 'SÃO"PAULO\\' });
    // Another login of the same line: a new session object, the same entry.
    const a2 = start({ city: 'SÃO"PAULO\\' });
    const b = start({ token: 'OTHER123' });
    const t = start({ city: 'SÃO"PAULO\\', lineTest: true });
    const starts: RecordStart[] = [
      a,
      { ...a, startedAt: a.startedAt + 1 },
      { ...a, target: 'other.example:8080' },
      { ...a, protocol: 'connect' },
      a2,
      b,
      { ...b, exitIp: '198.51.100.7' },
      t,
      a,
    ];
    starts.forEach((s, i) => w.row(s, i, 10 * i, 'ok', i % 2 ? 'r' : ''));
    const first = written(w);
    expect(first.rows).toHaveLength(starts.length);
    const keys = first.rows.map((r) => r[4] as number);
    expect(keys).toEqual([keys[0], keys[0], keys[0], keys[0], keys[0], keys[5], keys[5], keys[7], keys[0]]);
    expect(new Set([keys[0], keys[5], keys[7]]).size).toBe(3);
    first.rows.forEach((row, i) =>
      expect(JSON.stringify(row)).toBe(JSON.stringify(rowValues(keys[i]!, row[1] as number, starts[i]!, i, 10 * i, 'ok', i % 2 ? 'r' : ''))),
    );
    expect(first.sessions).toEqual([sessionValues(keys[0]!, a), sessionValues(keys[5]!, b), sessionValues(keys[7]!, t)]);
    // The next batch names again only the sessions its own rows use, under the same keys.
    w.row(b, 1, 1, 'ok', '');
    const second = written(w);
    expect(second.rows.map((r) => r[4])).toEqual([keys[5]]);
    expect(second.sessions).toEqual([sessionValues(keys[5]!, b)]);
  });

  it('integers of every size are written as JSON.stringify writes them', () => {
    const w = new RowWriter();
    const values = [0, 7, 10, 999_999_999, 1_000_000_000, 1_000_000_007, 1_790_000_000_123, 2 ** 31, 2 ** 53 - 1, -1, 1.5];
    for (const v of values) w.row({ ...start(), startedAt: v }, v, 0, 'ok', '');
    const { rows } = written(w);
    expect(rows.map((r) => r[0])).toEqual(values);
    expect(rows.map((r) => r[5])).toEqual(values);
  });

  it('a connection that started after now (the clock stepped back) lasted 0 ms, not less: its report is not refused', () => {
    const w = new RowWriter();
    w.row({ ...start(), startedAt: Date.now() + 60_000 }, 1, 1, 'ok', '');
    const { rows, sessions } = written(w);
    expect(rows[0]![1]).toBe(0);
    expect(gatewayReportInput.safeParse({ gatewayId: 'gw', seq: 1, items: [], logSessions: sessions, logRows: rows }).success).toBe(true);
  });

  it('rows join into one batch; a seal starts over; the buffer grows as needed', () => {
    const w = new RowWriter();
    expect(w.seal()).toBeNull();
    const long = start({ target: `${'a'.repeat(290)}.example:443` });
    for (let i = 0; i < 500; i++) w.row(long, i, i, 'ok', 'é'.repeat(300));
    expect(w.count).toBe(500);
    const { rows, sessions } = written(w);
    expect(rows.map((r) => r[5])).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(rows.every((r) => r[8] === 'é'.repeat(300) && r[3] === long.target)).toBe(true);
    expect(sessions).toHaveLength(1);
    expect(w.count).toBe(0);
    w.row(start(), 1, 1, 'ok', '');
    expect(written(w).rows).toHaveLength(1);
  });
});
