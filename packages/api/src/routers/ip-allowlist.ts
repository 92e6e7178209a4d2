import type { TRPCRouterRecord } from '@trpc/server';
import { parseAllowlistEntry, setIpAllowlistInput, ipAllowlistGetOutput, ipAllowlistSetOutput } from '@proxyhub/core';
import type { ApiConfig } from '../config';
import { DEFAULT_ENTRY_PORTS, getIpAllowlist, setIpAllowlist } from '../services/accounts/ip-allowlist';
import { scopedProcedure } from '../trpc';

/** The gateways' entry ports (GATEWAY_ENTRY_PORTS); null when they are off. */
const entryPortsOf = (config: ApiConfig) => (config.gateway.entryPorts === undefined ? DEFAULT_ENTRY_PORTS : config.gateway.entryPorts);

export const ipAllowlistRouter = {
  /** The list and the password-less setting, with the address this request came from (a suggestion for the list) and the entry ports. */
  get: scopedProcedure('accounts:read')
    .output(ipAllowlistGetOutput)
    .query(async ({ ctx }) => ({
      ...(await getIpAllowlist(ctx.db, ctx.user.id)),
      // As an entry would be written (a dual-stack socket reports IPv4 clients as ::ffff:a.b.c.d).
      currentAddress: parseAllowlistEntry(ctx.req.ip)?.entry ?? ctx.req.ip,
      entryPorts: entryPortsOf(ctx.deps.config),
    })),

  /** Replaces the list; `passwordless` omitted keeps the current setting. */
  set: scopedProcedure('accounts:write')
    .input(setIpAllowlistInput)
    .output(ipAllowlistSetOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => setIpAllowlist(tx, ctx.user.id, input, entryPortsOf(ctx.deps.config)))),
} satisfies TRPCRouterRecord;
