import { describe, expect, it } from 'vitest';
import { CONNECTION_ROW_FIELDS, connectionRowOf, gatewayConnectionRow, type GatewayConnectionRecord } from './connections';
import { gatewayReportInput } from './gateway';

const record: GatewayConnectionRecord = {
  id: '00000000-0000-4000-8000-000000000001',
  startedAt: 1_700_000_000_000,
  endedAt: 1_700_000_000_250,
  protocol: 'http',
  target: 'example.com:80',
  proxyUserId: 'u1a2b3c4d5',
  proxyAccountId: '00000000-0000-4000-8000-00000000aaaa',
  country: 'US',
  state: 'CA',
  city: 'LOSANGELES',
  session: 'rotating',
  bytesUp: 120,
  bytesDown: 1200,
  billedBytes: 1320,
  outcome: 'ok',
  reason: 'quote " and \\ and é',
  exitIp: '203.0.113.7',
  upstreamId: '6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e',
  zip: '90012',
  asn: '7922',
  connectMs: 84,
};

describe('connection rows (what gateways send)', () => {
  it('hold every field of a record, and read back as the record they were made from', () => {
    expect(connectionRowOf(record)).toHaveLength(CONNECTION_ROW_FIELDS.length);
    expect(gatewayConnectionRow.parse(JSON.parse(JSON.stringify(connectionRowOf(record))))).toEqual(record);
    // A line without ZIP or ASN (and a connection without a connect time): its row ends at the
    // upstream, as before them (a missing upstream is '').
    const { zip: _zip, asn: _asn, connectMs: _connectMs, ...plain } = record;
    expect(connectionRowOf(plain)).toHaveLength(CONNECTION_ROW_FIELDS.length - 3);
    expect(connectionRowOf({ ...plain, upstreamId: undefined }).at(-1)).toBe('');
    expect(gatewayConnectionRow.parse(JSON.parse(JSON.stringify(connectionRowOf(plain))))).toEqual(plain);
    // An ASN without a ZIP: the ZIP is '' between.
    expect(connectionRowOf({ ...plain, asn: '7922' }).slice(-2)).toEqual(['', '7922']);
    // A connect time without ZIP or ASN: both '' before it.
    expect(connectionRowOf({ ...plain, connectMs: 5 }).slice(-3)).toEqual(['', '', 5]);
    expect(gatewayConnectionRow.parse(JSON.parse(JSON.stringify(connectionRowOf({ ...plain, connectMs: 5 }))))).toMatchObject({ connectMs: 5 });
  });

  it('are checked as records are: a report with a bad row is refused whole', () => {
    const row = connectionRowOf(record);
    const report = (rows: unknown[]) => gatewayReportInput.safeParse({ gatewayId: 'gw', seq: 1, items: [], rows });
    expect(report([row]).success).toBe(true);
    // The last fields, the ZIP, the ASN, the upstream and the connect time, may be missing (a gateway of a version before them); no other.
    expect(report([row.slice(0, -1)]).success).toBe(true);
    expect(report([row.slice(0, -4)]).success).toBe(true);
    expect(report([row.slice(0, -5)]).success).toBe(false);
    expect(report([[...row.slice(0, 11), -1, ...row.slice(12)]]).success).toBe(false);
    expect(report([[...row.slice(0, 3), 'ftp', ...row.slice(4)]]).success).toBe(false);
  });

  it('are refused with a start from the year 9000 on, and compact rows with a duration over a century', () => {
    const row = connectionRowOf(record);
    const report = (input: object) => gatewayReportInput.safeParse({ gatewayId: 'gw', seq: 1, items: [], ...input }).success;
    const latest = Date.UTC(9000, 0, 1) - 1;
    expect(report({ rows: [[...row.slice(0, 1), latest, latest, ...row.slice(3)]] })).toBe(true);
    expect(report({ rows: [[...row.slice(0, 1), latest + 1, latest + 1, ...row.slice(3)]] })).toBe(false);
    const session = [1, 'u1a2b3c4d5', record.proxyAccountId, 'US', '', '', 'rotating', 0];
    const compact = (startedAt: number, duration: number) => [startedAt, duration, 'http', 'example.com:80', 1, 1, 1, 'ok', '', ''];
    const century = 100 * 366 * 86_400_000;
    expect(report({ logSessions: [session], logRows: [compact(latest, century)] })).toBe(true);
    expect(report({ logSessions: [session], logRows: [compact(latest, century + 1)] })).toBe(false);
    expect(report({ logSessions: [session], logRows: [compact(0, -1)] })).toBe(false);
  });
});
