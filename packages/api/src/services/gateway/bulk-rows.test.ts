/**
 * The bulk check of a report's rows and the zod schemas it stands for give the same verdict on
 * every input, and the same error when they refuse: each edge of each column, lengths counted as
 * zod counts them (UTF-16 units), rows too short and too long, and thousands of random mutations.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gatewayLogRow, gatewayLogSession, gatewayReportInput, MAX_REPORT_ROWS } from '@proxyhub/core';
import { bulkArray, gatewayReportBulkInput } from './bulk-rows';

const exactRows = z.array(gatewayLogRow).max(MAX_REPORT_ROWS);
const exactSessions = z.array(gatewayLogSession).max(MAX_REPORT_ROWS);
const bulkRows = bulkArray(gatewayLogRow, MAX_REPORT_ROWS);
const bulkSessions = bulkArray(gatewayLogSession, MAX_REPORT_ROWS);

const row = (): unknown[] => [Date.now(), 1234, 'connect', 'host-1.example.com:443', 1, 500, 40_000, 'ok', '', ''];
const session = (): unknown[] => [1, 'abc123xyz', randomUUID(), 'US', 'CA', 'LOSANGELES', 'ABCD1234', 0];

/** Both verdicts, and both first messages and paths when they refuse. */
function same(exact: z.ZodType, bulk: z.ZodType, value: unknown) {
  const a = exact.safeParse(value);
  const b = bulk.safeParse(value);
  expect(b.success, JSON.stringify(value)?.slice(0, 200)).toBe(a.success);
  if (a.success && b.success) expect(b.data).toEqual(a.data);
  if (!a.success && !b.success) expect(b.error.issues.map((i) => [i.path, i.message])).toEqual(a.error.issues.map((i) => [i.path, i.message]));
  return a.success;
}

const emoji = '\u{1F600}'; // two UTF-16 units

describe('a report’s rows checked in bulk', () => {
  it('accept what zod accepts and refuse what it refuses, with its messages: each column’s edges', () => {
    const cases: Array<[number, unknown]> = [
      [0, -1],
      [0, 1.5],
      [0, Date.UTC(9000, 0, 1)],
      [0, '1'],
      [1, 100 * 366 * 86_400_000 + 1],
      [2, 'CONNECT'],
      [2, 'socks5'],
      [3, 'x'.repeat(300)],
      [3, 'x'.repeat(301)],
      [3, emoji.repeat(150)],
      [3, emoji.repeat(151)],
      [3, null],
      [4, Number.MAX_SAFE_INTEGER],
      [4, Number.MAX_SAFE_INTEGER + 2],
      [5, 0],
      [6, -0.5],
      [7, 'rotated'],
      [7, 'nope'],
      [8, 'r'.repeat(300)],
      [8, 'r'.repeat(301)],
      [9, '2001:db8::1'],
      [9, 5],
    ];
    let accepted = 0;
    for (const [i, v] of cases) {
      const r = row();
      r[i] = v;
      if (same(exactRows, bulkRows, [row(), r])) accepted++;
    }
    // Both kinds were tried.
    expect(accepted).toBeGreaterThan(5);
    expect(accepted).toBeLessThan(cases.length - 5);
  });

  it('optional last columns: upstream and seq present or absent, never null; no 13th column, no 9-column row', () => {
    for (const r of [
      [...row(), 'up-1'],
      [...row(), 'up-1', 7],
      [...row(), '', 2 ** 48 - 1],
      [...row(), '', 2 ** 48],
      [...row(), null],
      [...row(), 'up-1', 7, 'extra'],
      row().slice(0, 9),
      [],
      'not a row',
      { 0: 1 },
    ])
      same(exactRows, bulkRows, [r]);
    for (const v of [undefined, null, 'rows', {}, [], new Array(MAX_REPORT_ROWS + 1).fill(row())]) same(exactRows, bulkRows, v);
  });

  it('session entries likewise: the UUID, the run, the line-test flag, ZIP and ASN', () => {
    const run = 'a1b2c3d4e5f64a1b8c9d';
    for (const [i, v] of [
      [2, 'not-a-uuid'],
      [2, randomUUID().toUpperCase()],
      [7, 1],
      [7, 2],
      [7, true],
      [8, run],
      [8, run.replace('4', '5')],
    ] as const) {
      const s = session();
      s[i] = v;
      same(exactSessions, bulkSessions, [s]);
    }
    same(exactSessions, bulkSessions, [[...session(), run, '90012', '7922']]);
    same(exactSessions, bulkSessions, [[...session(), run, 'Z'.repeat(17)]]);
  });

  it('random mutations of valid rows: the same verdict every time', () => {
    const values: unknown[] = [-1, 0, 1, 2.5, 2 ** 53, '', 'ok', 'x'.repeat(65), 'y'.repeat(301), emoji.repeat(33), null, true, [], {}];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let k = 0; k < 3000; k++) {
      const r = [...row(), ...(rand(2) ? ['up'] : []), ...(rand(3) === 0 ? [rand(1000)] : [])];
      for (let m = rand(3); m > 0; m--) r[rand(r.length + 1)] = values[rand(values.length)];
      same(exactRows, bulkRows, [row(), r]);
    }
  });

  it('gateway.report’s input: the same values out as core’s schema gives, defaults included', () => {
    const input = {
      gatewayId: 'gw-1',
      seq: 3,
      items: [{ leaseId: randomUUID(), bytesUp: 1, bytesDown: 2, sessions: 1 }],
      logSessions: [session()],
      logRows: [row(), [...row(), 'up-1', 9]],
    };
    expect(gatewayReportBulkInput.parse(input)).toEqual(gatewayReportInput.parse(input));
    const bad = { ...input, logRows: [row(), [...row().slice(0, 7), 'nope', '', '']] };
    const a = gatewayReportInput.safeParse(bad);
    const b = gatewayReportBulkInput.safeParse(bad);
    expect(a.success || b.success).toBe(false);
    expect(b.error!.issues.map((i) => [i.path, i.message])).toEqual(a.error!.issues.map((i) => [i.path, i.message]));
  });

  it('refuses, at start, an item schema whose output differs from its input', () => {
    expect(() => bulkArray(z.tuple([z.string().default('x')]), 10)).toThrow(/changes values/);
    expect(() => bulkArray(z.tuple([z.string().transform((s) => s.length)]), 10)).toThrow();
  });
});
