/**
 * The contract of the report's hand-written wire call (src/report/report-call.ts): the same report
 * sent through a real tRPC client (createTRPCClient, superjson, as every other call) and through the
 * hand-written body reaches the real server as the same input: the same answer and the same rows
 * stored. A hand-written body that differs is caught by the same comparison.
 */
import { randomUUID } from 'node:crypto';
import { createTRPCClient, httpLink } from '@trpc/client';
import { asc, eq } from 'drizzle-orm';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '@proxyhub/api';
import { connectionRowOf, type GatewayConnectionRecord, type GatewayLogRow, type GatewayLogSession, type GatewayReportInput } from '@proxyhub/core';
import { connectionLog } from '@proxyhub/db';
import { createBackend, type Backend } from '../src/backend';
import type { RowBatch } from '../src/connection-log/row-batch';
import { INTERNAL_KEY, startTestServer, userWithCredits, type TestServer } from './helpers';

let server: TestServer;
let backend: Backend;

beforeAll(async () => {
  server = await startTestServer();
  backend = createBackend(server.url, INTERNAL_KEY);
});
afterAll(() => server?.close());

/** A batch as the row writer seals it: the rows' JSON comma-joined, and (compact rows) their sessions'. */
function batch(rows: readonly unknown[], sessions?: readonly GatewayLogSession[]): RowBatch {
  const json = (xs: readonly unknown[]) => Buffer.from(xs.map((x) => JSON.stringify(x)).join(','));
  return sessions ? { bytes: json(rows), count: rows.length, sessions: json(sessions) } : { bytes: json(rows), count: rows.length };
}

/** What the server stored for a gateway id, without the ids it makes for compact rows. */
async function stored(gatewayId: string) {
  const rows = await server.database.db
    .select()
    .from(connectionLog)
    .where(eq(connectionLog.gatewayId, gatewayId))
    .orderBy(asc(connectionLog.startedAt), asc(connectionLog.target));
  // The next path stores the same full rows (same ids) again: this one's go.
  await server.database.db.delete(connectionLog).where(eq(connectionLog.gatewayId, gatewayId));
  return rows.map(({ id, gatewayId: _, ...r }) => ({ ...r, id: r.target.startsWith('full.') ? id : 'made by the server' }));
}

describe("the report's hand-written call", () => {
  it('reaches the server as the tRPC client sends it: same answer, same rows stored; a different body does not', async () => {
    const u = await userWithCredits(server, 1024n * 1024n);
    const auth = await backend.authorize({ proxyUserId: u.proxyUserId, password: u.proxyPassword });
    if (!auth.account.ok) throw new Error('authorize failed');
    const account = auth.account.proxyAccountId;
    const now = Date.now();
    const sessions: GatewayLogSession[] = [
      [1, u.proxyUserId, account, 'US', 'CA', 'LOSANGELES', 'rotating', 0],
      [2, u.proxyUserId, account, 'DE', '', '', 'T0K3N123', 1],
    ];
    const first: GatewayLogRow[] = [
      [now - 3000, 250, 'http', 'a.example.com:80', 1, 120, 1200, 'ok', '', '203.0.113.7'],
      [now - 2500, 0, 'connect', 'b.example.com:443', 2, 0, 0, 'target_unreachable', 'connect ECONNREFUSED "quoted" \\ é', ''],
    ];
    const second: GatewayLogRow[] = [[now - 2000, 40, 'socks5', '[2001:db8::1]:443', 1, 80, 300, 'client_closed', '', '203.0.113.8']];
    const full: GatewayConnectionRecord = {
      ...{ id: randomUUID(), startedAt: now - 4000, endedAt: now - 3900, protocol: 'http', target: 'full.example.com:80' },
      ...{ proxyUserId: u.proxyUserId, proxyAccountId: account, country: 'US', state: '', city: '', session: 'rotating' },
      ...{ bytesUp: 5, bytesDown: 7, billedBytes: 12, outcome: 'ok', reason: '', exitIp: '' },
    };
    const common = { items: [], openConnections: [{ proxyAccountId: account, open: 0 }] };

    // The tRPC client, as the gateway's every other call: the decoded form of the same report.
    const client = createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${server.url}/trpc`, transformer: superjson, headers: { authorization: `Bearer ${INTERNAL_KEY}` } })],
    });
    const viaClient: GatewayReportInput = {
      gatewayId: 'contract-client',
      seq: 1,
      ...common,
      rows: [connectionRowOf(full)],
      logSessions: [sessions[0]!, sessions[1]!, sessions[0]!],
      logRows: [...first, ...second],
    };
    const clientAnswer = await client.gateway.report.mutate(viaClient);
    const clientRows = await stored('contract-client');
    expect(clientRows).toHaveLength(4);

    // The hand-written body: the same report as the gateway holds it, in sealed batches.
    const batches = [batch([connectionRowOf(full)]), batch(first, sessions), batch(second, [sessions[0]!])];
    const handAnswer = await backend.report({ gatewayId: 'contract-hand', seq: 1, ...common, rows: batches });
    expect(handAnswer).toEqual(clientAnswer);
    expect(await stored('contract-hand')).toEqual(clientRows);

    // A body that differs (two columns out of core's order) is not what the client sends: caught.
    const swapped = first.map((r) => [r[0], r[1], r[2], r[3], r[4], r[6], r[5], r[7], r[8], r[9]]);
    await backend.report({ gatewayId: 'contract-differs', seq: 1, ...common, rows: [batches[0]!, batch(swapped, sessions), batches[2]!] });
    const differs = await stored('contract-differs');
    expect(differs).toHaveLength(4);
    expect(differs).not.toEqual(clientRows);
  });
});
