import { gatewayConnectionRow } from '@proxyhub/core';
import { describe, expect, it } from 'vitest';
import type { Session } from './authenticator';
import { connectionRow, encodeRecord, type RecordStart } from './connection-record';

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
    id: '7d0c4a52-7c52-4a43-9b39-2d3c3b0f8e11',
    startedAt: 1_790_000_000_000,
    protocol: 'http',
    target: over.target ?? 'example.com:443',
    session,
    baseUp: 0,
    baseDown: 0,
    ...(over.exitIp === undefined ? {} : { exitIp: over.exitIp }),
  };
}

describe('connectionRow', () => {
  // A row is what the journal and the report carry unchanged: the text of an earlier run's record
  // (encodeRecord) for the same values, and a row the server's schema takes, whatever the strings hold.
  it.each([
    ['plain values', start(), 'ok', ''],
    ['a reason with quotes, backslashes, control characters and non-ASCII', start(), 'target_unreachable', 'said "no" \\ at\ttab\nline é ü 漢 \u2028'],
    ['a target and city that need escaping', start({ target: '[::1]:80', city: 'SÃO"PAULO\\' }), 'refused', 'x'],
    ['a rotating line test with an exit address', start({ durationMinutes: 0, lineTest: true, exitIp: '203.0.113.9' }), 'timeout', 'Timed out'],
    ['a lone surrogate', start({ token: 'AB\ud800CD' }), 'ok', '\udfff'],
  ] as const)('%s: the same text as JSON.stringify of its values, and a valid row', (_name, s, outcome, reason) => {
    const row = connectionRow(s, 123, 4567, outcome, reason);
    const parsed = gatewayConnectionRow.parse(JSON.parse(row));
    expect(row).toBe(encodeRecord(parsed));
    expect(parsed).toMatchObject({ bytesUp: 123, bytesDown: 4567, billedBytes: s.session.lineTest ? 0 : 4690, outcome, target: s.target });
  });
});
