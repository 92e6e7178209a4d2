import type { TRPCRouterRecord } from '@trpc/server';
import {
  statementConnectionsInput,
  statementInput,
  statementsInput,
  statementsKeyOutput,
  statementsListOutput,
  statementsDayOutput,
  statementsConnectionsCsvOutput,
} from '@proxyhub/core';
import { dayStatements, listStatements, statementConnectionsCsv, statementKey } from '../services/money/statements';
import { publicProcedure, scopedProcedure } from '../trpc';

export const statementsRouter = {
  /** The public key that checks every statement's signature (no sign-in: anyone may check). */
  key: publicProcedure.output(statementsKeyOutput).query(({ ctx }) => statementKey(ctx.deps.config)),
  /** The signed-in user's statements over a range of UTC days, newest first. */
  list: scopedProcedure('usage:read')
    .input(statementsInput)
    .output(statementsListOutput)
    .query(({ ctx, input }) => listStatements(ctx.db, ctx.deps.config, ctx.user.id, input)),
  /** One day's statements, one per proxy account with traffic that day. */
  day: scopedProcedure('usage:read')
    .input(statementInput)
    .output(statementsDayOutput)
    .query(({ ctx, input }) => dayStatements(ctx.db, ctx.deps.config, ctx.user.id, input.date)),
  /** The CSV a statement's connectionsDigest is the SHA-256 of. */
  connectionsCsv: scopedProcedure('usage:read')
    .input(statementConnectionsInput)
    .output(statementsConnectionsCsvOutput)
    .query(({ ctx, input }) => statementConnectionsCsv(ctx.db, ctx.user.id, input)),
} satisfies TRPCRouterRecord;
