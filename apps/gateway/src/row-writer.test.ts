import { gatewayConnectionRow } from '@proxyhub/core';
import { describe, expect, it } from 'vitest';
import type { Session } from './authenticator';
import { isRotating } from '@proxyhub/core';
import { encodeRecord, type RecordStart } from './connection-record';
import { RowWriter } from './row-writer';

function start(over: { target?: string; token?: string; city?: string; durationMinutes?: number; lineTest?: boolean; exitIp?: string } = {}): RecordStart {
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
  };
}

/** What a row holds, in CONNECTION_ROW_FIELDS' order (the reference the writer's bytes are checked against). */
function rowValues(id: string, endedAt: number, s: RecordStart, up: number, down: number, outcome: string, reason: string): unknown[] {
  const { parts, account } = s.session;
  const loc = parts.location;
  const lineTest = s.session.lineTest === true;
  return [
    id,
    s.startedAt,
    endedAt,
    s.protocol,
    s.target,
    parts.proxyUserId,
    account.id,
    loc?.country ?? '',
    loc?.state ?? '',
    loc?.city ?? '',
    isRotating(parts) ? 'rotating' : parts.token,
    up,
    down,
    lineTest ? 0 : up + down,
    outcome,
    (lineTest ? `line test, not billed${reason ? `: ${reason}` : ''}` : reason).slice(0, 300),
    s.exitIp,
  ];
}

/** The rows a writer wrote, parsed as the report's array. */
function written(w: RowWriter): unknown[] {
  const batch = w.seal();
  return batch ? (JSON.parse(`[${Buffer.from(batch.bytes).toString('utf8')}]`) as unknown[]) : [];
}

describe('RowWriter', () => {
  // A row is what the journal and the report carry unchanged: the bytes of JSON.stringify of its
  // values, the text of an earlier run's record (encodeRecord) for the same values, and a row the
  // server's schema takes, whatever the strings hold.
  it.each([
    ['plain values', start(), 'ok', ''],
    ['a reason with quotes, backslashes, control characters and non-ASCII', start(), 'target_unreachable', 'said "no" \\ at\ttab\nline é ü 漢 \u2028 \u007f'],
    ['a target and city that need escaping', start({ target: '[::1]:80', city: 'SÃO"PAULO\\' }), 'refused', 'x'],
    ['a rotating line test with an exit address', start({ durationMinutes: 0, lineTest: true, exitIp: '203.0.113.9' }), 'timeout', 'Timed out'],
    ['a lone surrogate', start({ token: 'AB\ud800CD' }), 'ok', '\udfff'],
    ['a reason over 300 characters', start(), 'cut_off', `${'é'.repeat(299)}"and more`],
  ] as const)('%s: the bytes of JSON.stringify of its values, and a valid row', (_name, s, outcome, reason) => {
    const w = new RowWriter();
    const before = Date.now();
    w.row(s, 123, 4567, outcome, reason);
    const batch = w.seal()!;
    const text = Buffer.from(batch.bytes).toString('utf8');
    const row = JSON.parse(text) as unknown[];
    expect(row[2]).toBeGreaterThanOrEqual(before);
    expect(row[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(text).toBe(JSON.stringify(rowValues(row[0] as string, row[2] as number, s, 123, 4567, outcome, reason)));
    const parsed = gatewayConnectionRow.parse(row);
    expect(text).toBe(encodeRecord(parsed));
    expect(parsed).toMatchObject({ bytesUp: 123, bytesDown: 4567, billedBytes: s.session.lineTest ? 0 : 4690, outcome, target: s.target });
  });

  it("a session's rows repeat its fields exactly, and change with the target, the protocol and the session", () => {
    const w = new RowWriter();
    const a = start({ city: 'SÃO"PAULO\\' });
    const b = start({ token: 'OTHER123' });
    const starts: RecordStart[] = [
      a,
      { ...a, startedAt: a.startedAt + 1 },
      { ...a, target: 'other.example:8080' },
      { ...a, protocol: 'connect' },
      a,
      b,
      { ...b, exitIp: '198.51.100.7' },
      a,
    ];
    starts.forEach((s, i) => w.row(s, i, 10 * i, 'ok', i % 2 ? 'r' : ''));
    const rows = written(w) as unknown[][];
    expect(rows).toHaveLength(starts.length);
    rows.forEach((row, i) =>
      expect(JSON.stringify(row)).toBe(JSON.stringify(rowValues(row[0] as string, row[2] as number, starts[i]!, i, 10 * i, 'ok', i % 2 ? 'r' : ''))),
    );
  });

  it('integers of every size are written as JSON.stringify writes them', () => {
    const w = new RowWriter();
    const values = [0, 7, 10, 999_999_999, 1_000_000_000, 1_000_000_007, 1_790_000_000_123, 2 ** 31, 2 ** 53 - 1, -1, 1.5];
    for (const v of values) w.row({ ...start(), startedAt: v }, v, 0, 'ok', '');
    expect(written(w).map((r) => (r as unknown[])[1])).toEqual(values);
  });

  it('rows join into one batch; a seal starts over; the buffer grows as needed', () => {
    const w = new RowWriter();
    expect(w.seal()).toBeNull();
    const long = start({ target: `${'a'.repeat(290)}.example:443` });
    for (let i = 0; i < 500; i++) w.row(long, i, i, 'ok', 'é'.repeat(300));
    expect(w.count).toBe(500);
    const rows = written(w);
    expect(rows.map((r) => (r as unknown[])[11])).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(rows.every((r) => (r as unknown[])[15] === 'é'.repeat(300) && (r as unknown[])[4] === long.target)).toBe(true);
    // Every record its own id.
    expect(new Set(rows.map((r) => (r as unknown[])[0])).size).toBe(500);
    expect(w.count).toBe(0);
    w.row(start(), 1, 1, 'ok', '');
    expect(written(w)).toHaveLength(1);
  });
});
