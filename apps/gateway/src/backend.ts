import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { inferRouterOutputs } from '@trpc/server';
import superjson from 'superjson';
import type { AppRouter } from '@proxyhub/api';
import {
  positionsBy,
  type GatewayAuthorizeAddressInput,
  type GatewayAuthorizeInput,
  type GatewayHeartbeatInput,
  type GatewayReleaseLeasesInput,
  type GatewayReserveLeaseInput,
} from '@proxyhub/core';
import { batchedCalls } from './batched-calls';
import { createNodeFetch } from './http-fetch';
import { reportCall, type ReportAnswer, type ReportInput } from './report/report-call';

/** The server's answers, as its router declares them. */
type GatewayAnswers = inferRouterOutputs<AppRouter>['gateway'];
export type AuthorizeAnswer = GatewayAnswers['authorize'];
export type AccountAnswer = AuthorizeAnswer['account'];
/** What an entry port's profile makes of a password-less connection (the server's PortLine). */
export type PortLine = NonNullable<Extract<AccountAnswer, { ok: true }>['portProfile']>;
export type LeaseAnswer = GatewayAnswers['reserveLease'];
export type { ReportAnswer, ReportInput };

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
