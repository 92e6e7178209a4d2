import type { TRPCRouterRecord } from '@trpc/server';
import { parseAllowlistEntry, setIpAllowlistInput } from '@proxyhub/core';
import { getIpAllowlist, setIpAllowlist } from '../services/accounts/ip-allowlist';
import { userProcedure } from '../trpc';

export const ipAllowlistRouter = {
  /** The list and the password-less setting, with the address this request came from (a suggestion for the list). */
  get: userProcedure.query(async ({ ctx }) => ({
    ...(await getIpAllowlist(ctx.db, ctx.user.id)),
    // As an entry would be written (a dual-stack socket reports IPv4 clients as ::ffff:a.b.c.d).
    currentAddress: parseAllowlistEntry(ctx.req.ip)?.entry ?? ctx.req.ip,
  })),

  /** Replaces the list; `passwordless` omitted keeps the current setting. */
  set: userProcedure.input(setIpAllowlistInput).mutation(({ ctx, input }) => ctx.db.transaction((tx) => setIpAllowlist(tx, ctx.user.id, input))),
} satisfies TRPCRouterRecord;
