import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { inferRouterOutputs } from '@trpc/server';
import superjson, { type SuperJSONResult } from 'superjson';
import type { AppRouter } from '@proxyhub/api';
import {
  positionsBy,
  type GatewayAuthorizeAddressInput,
  type GatewayAuthorizeInput,
  type GatewayHeartbeatInput,
  type GatewayReleaseLeasesInput,
  type GatewayReportInput,
  type GatewayReserveLeaseInput,
} from '@proxyhub/core';
import { batchedCalls } from './batched-calls';
import { joinedRows, sessionsOf, type RowBatch } from './connection-record';
import { createNodeFetch } from './http-fetch';

/** The server's answers, as its router declares them. */
type GatewayAnswers = inferRouterOutputs<AppRouter>['gateway'];
export type AuthorizeAnswer = GatewayAnswers['authorize'];
export type AccountAnswer = AuthorizeAnswer['account'];
export type LeaseAnswer = GatewayAnswers['reserveLease'];
/** A report's answer: `allowances` only when it listed connections (connection-slots.ts). */
export type ReportAnswer = GatewayAnswers['report'];
/** gateway.report's input as the gateway sends it: its connection records as the batches of JSON rows they were journaled as (compact ones as logRows and logSessions). */
export type ReportInput = Omit<GatewayReportInput, 'connections' | 'rows' | 'logRows' | 'logSessions'> & { rows?: readonly RowBatch[] };

/** What the gateway needs from the server; the tRPC client below is the real one, tests may wrap it. */
export interface Backend {
  authorize(input: GatewayAuthorizeInput): Promise<AuthorizeAnswer>;
  /** A connection without credentials: whose password-less address its source is, if anyone's. */
  authorizeAddress(input: GatewayAuthorizeAddressInput): Promise<GatewayAnswers['authorizeAddress']>;
  reserveLease(input: GatewayReserveLeaseInput): Promise<LeaseAnswer>;
  report(input: ReportInput): Promise<ReportAnswer>;
  releaseLeases(input: GatewayReleaseLeasesInput): Promise<GatewayAnswers['releaseLeases']>;
  /** The enabled upstream pools (passwords in clear). */
  upstreams(): Promise<GatewayAnswers['upstreams']>;
  heartbeat(input: GatewayHeartbeatInput): Promise<GatewayAnswers['heartbeat']>;
  /** The target policy (target-policy.ts); absent: nothing is blocked. */
  targetPolicy?(): Promise<GatewayAnswers['targetPolicy']>;
}

const CLOSE = Buffer.from(']');

/**
 * gateway.report as tRPC's HTTP call, its body the records' batches of JSON rows as they are
 * (written once when each connection ended, and journaled as they are: row-writer.ts), sent in
 * parts, instead of the client serializing thousands of records again. The input is plain JSON (strings,
 * numbers, arrays), so superjson's envelope is `{ json }` without meta, what superjson itself sends
 * for such values; the answer and errors are read as the client reads them (a refused input is a
 * TRPCClientError with BAD_REQUEST: isRejectedInput).
 */
function reportCall(url: string, headers: Record<string, string>, fetchJson: ReturnType<typeof createNodeFetch>) {
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

/** The server's internal gateway.* procedures over tRPC, authenticated with the internal key. */
export function createBackend(serverUrl: string, internalApiKey: string): Backend {
  const base = `${serverUrl.replace(/\/$/, '')}/trpc`;
  const headers = { authorization: `Bearer ${internalApiKey}` };
  const fetchJson = createNodeFetch();
  const client = createTRPCClient<AppRouter>({
    links: [httpLink({ url: base, transformer: superjson, headers, fetch: fetchJson as unknown as typeof fetch })],
  });
  // Logins and lease requests of one moment go to the server together (batched-calls.ts).
  const authorize = batchedCalls(async (items: readonly GatewayAuthorizeInput[]) => (await client.gateway.authorizeMany.mutate({ items: [...items] })).answers);
  const reserveLease = batchedCalls(async (items: readonly GatewayReserveLeaseInput[]) => {
    // One call per gateway id (a process normally has one); grants go back by position.
    const grants: LeaseAnswer[] = [];
    await Promise.all(
      [...positionsBy(items, (item) => item.gatewayId)].map(async ([gatewayId, at]) => {
        const r = await client.gateway.reserveLeases.mutate({
          gatewayId,
          items: at.map((i) => ({ proxyAccountId: items[i]!.proxyAccountId, bytes: items[i]!.bytes })),
        });
        at.forEach((i, k) => (grants[i] = r.grants[k]!));
      }),
    );
    return grants;
  });
  return {
    authorize,
    authorizeAddress: (input) => client.gateway.authorizeAddress.mutate(input),
    reserveLease,
    report: reportCall(`${base}/gateway.report`, headers, fetchJson),
    releaseLeases: (input) => client.gateway.releaseLeases.mutate(input),
    upstreams: () => client.gateway.upstreams.query(),
    heartbeat: (input) => client.gateway.heartbeat.mutate(input),
    targetPolicy: () => client.gateway.targetPolicy.query(),
  };
}

/** The server answered and refused the input itself: sending it again cannot succeed. */
export function isRejectedInput(err: unknown): boolean {
  return err instanceof TRPCClientError && (err.data as { code?: string } | undefined)?.code === 'BAD_REQUEST';
}
