import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import superjson from 'superjson';
import type { AppRouter } from '@proxyhub/api';
import { createNodeFetch } from './http-fetch';
import type { GatewayAuthorizeInput, GatewayReleaseLeasesInput, GatewayReportInput, GatewayReserveLeaseInput, UsageType } from '@proxyhub/core';

/** What the gateway needs from the server; the tRPC client below is the real one, tests may wrap it. */
export interface Backend {
  authorize(input: GatewayAuthorizeInput): Promise<AuthorizeAnswer>;
  reserveLease(input: GatewayReserveLeaseInput): Promise<LeaseAnswer>;
  report(input: GatewayReportInput): Promise<{ applied: boolean; dropped: string[] }>;
  releaseLeases(input: GatewayReleaseLeasesInput): Promise<{ released: number }>;
}

export type AccountAnswer =
  | { ok: true; proxyAccountId: string; usageType: UsageType; creditsBytes: bigint }
  | { ok: false; reason: 'bad_credentials' | 'disabled'; message: string };

export interface AuthorizeAnswer {
  account: AccountAnswer;
  locationKnown: boolean | null;
}

export interface LeaseAnswer {
  leaseId: string | null;
  grantedBytes: bigint;
  balanceBytes: bigint;
  outcome: 'granted' | 'empty' | 'disabled' | 'unknown_account';
}

/** The server's internal gateway.* procedures over tRPC, authenticated with the internal key. */
export function createBackend(serverUrl: string, internalApiKey: string): Backend {
  const client = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${serverUrl.replace(/\/$/, '')}/trpc`,
        transformer: superjson,
        headers: { authorization: `Bearer ${internalApiKey}` },
        fetch: createNodeFetch() as unknown as typeof fetch,
      }),
    ],
  });
  return {
    authorize: (input) => client.gateway.authorize.mutate(input),
    reserveLease: (input) => client.gateway.reserveLease.mutate(input),
    report: (input) => client.gateway.report.mutate(input),
    releaseLeases: (input) => client.gateway.releaseLeases.mutate(input),
  };
}

/** The server answered and refused the input itself: sending it again cannot succeed. */
export function isRejectedInput(err: unknown): boolean {
  return err instanceof TRPCClientError && (err.data as { code?: string } | undefined)?.code === 'BAD_REQUEST';
}
