import type { TRPCRouterRecord } from '@trpc/server';
import { targetPolicyInput, adminTargetPolicyOutput, adminSetTargetPolicyOutput } from '@proxyhub/core';
import { getTargetPolicy, setTargetPolicy } from '../../services/network/target-policy';
import { adminOrInternalProcedure } from '../../trpc';

/** The Target policy tab. */
export const adminTargetPolicyProcedures = {
  /** The domains the gateways refuse, and whether they refuse raw IP targets. */
  targetPolicy: adminOrInternalProcedure.output(adminTargetPolicyOutput).query(({ ctx }) => getTargetPolicy(ctx.db)),
  setTargetPolicy: adminOrInternalProcedure
    .input(targetPolicyInput)
    .output(adminSetTargetPolicyOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => setTargetPolicy(tx, input))),
} satisfies TRPCRouterRecord;
