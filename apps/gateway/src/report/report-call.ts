/**
 * The report's wire call: gateway.report as tRPC's HTTP request, written here rather than by the
 * tRPC client so that the records' bytes go as they are. The contract test
 * (apps/gateway/test/report-call.test.ts) holds it to what the tRPC client sends.
 */
import { TRPCClientError } from '@trpc/client';
import type { inferRouterOutputs } from '@trpc/server';
import superjson, { type SuperJSONResult } from 'superjson';
import type { AppRouter } from '@proxyhub/api';
import type { GatewayReportInput } from '@proxyhub/core';
import { joinedRows, sessionsOf, type RowBatch } from '../connection-log/row-batch';
import type { createNodeFetch } from '../http-fetch';

/** A report's answer: `allowances` only when it listed connections (connection-slots.ts). */
export type ReportAnswer = inferRouterOutputs<AppRouter>['gateway']['report'];
/** gateway.report's input as the gateway sends it: its connection records as the batches of JSON rows they were journaled as (compact ones as logRows and logSessions). */
export type ReportInput = Omit<GatewayReportInput, 'connections' | 'rows' | 'logRows' | 'logSessions'> & { rows?: readonly RowBatch[] };

const CLOSE = Buffer.from(']');

/**
 * gateway.report as tRPC's HTTP call, its body the records' batches of JSON rows as they are
 * (written once when each connection ended, and journaled as they are: row-writer.ts), sent in
 * parts, instead of the client serializing thousands of records again. The input is plain JSON (strings,
 * numbers, arrays), so superjson's envelope is `{ json }` without meta, what superjson itself sends
 * for such values; the answer and errors are read as the client reads them (a refused input is a
 * TRPCClientError with BAD_REQUEST: isRejectedInput).
 */
export function reportCall(url: string, headers: Record<string, string>, fetchJson: ReturnType<typeof createNodeFetch>) {
  return async (input: ReportInput): Promise<ReportAnswer> => {
    const { rows, ...rest } = input;
    const head = JSON.stringify(rest);
    let body: string | Uint8Array[] = `{"json":${head}}`;
    if (rows?.length) {
      const full = rows.filter((b) => !b.sessions);
      const compact = rows.filter((b) => b.sessions);
      body = [Buffer.from(`{"json":${head.slice(0, -1)}`)];
      if (full.length) body.push(Buffer.from(',"rows":['), ...joinedRows(full), CLOSE);
      if (compact.length)
        body.push(Buffer.from(',"logSessions":['), ...joinedRows(compact, sessionsOf), Buffer.from('],"logRows":['), ...joinedRows(compact), CLOSE);
      body.push(Buffer.from('}}'));
    }
    const res = await fetchJson(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    const payload = (await res.json()) as { result?: { data: SuperJSONResult }; error?: SuperJSONResult };
    if (payload.error) throw TRPCClientError.from({ error: superjson.deserialize(payload.error) }, { meta: { response: res } });
    if (!res.ok || !payload.result) throw new TRPCClientError(`gateway.report: HTTP ${res.status} without a result`);
    return superjson.deserialize<ReportAnswer>(payload.result.data);
  };
}
