import type { TRPCRouterRecord } from '@trpc/server';
import {
  acceptInviteInput,
  accountAuditInput,
  teamAuditOutput,
  teamDeletedOutput,
  teamInviteAnswerOutput,
  teamInviteIdInput,
  teamInviteInput,
  teamListOutput,
  teamMemberInput,
  teamMemberRoleInput,
  teamMembershipOutput,
  teamMembershipsOutput,
  teamSetRoleOutput,
} from '@proxyhub/core';
import { limited } from '../limits';
import { mailTemplates } from '../mail';
import { listAccountAudit } from '../services/accounts/account-audit';
import { acceptInvite, inviteMember, listMemberships, listTeam, removeMember, revokeInvite, setMemberRole } from '../services/accounts/team';
import { teamProcedure, userProcedure } from '../trpc';

/** Team members (docs/teams.md): managed by the owner and admins; accepting and switching are the person's own. */
export const teamRouter = {
  list: teamProcedure('team:manage')
    .output(teamListOutput)
    .query(({ ctx }) => listTeam(ctx.db, ctx.user.id)),
  invite: teamProcedure('team:manage')
    .input(teamInviteInput)
    // Each invite mails an address the caller names: limited like the other mail-sending paths.
    .use(
      limited((ctx, input: { email: string }) => [
        // The address first: a refused repeat does not spend the account's allowance.
        ['teamInviteEmail', input.email],
        ['teamInvite', ctx.user!.id],
      ]),
    )
    .output(teamInviteAnswerOutput)
    .mutation(async ({ ctx, input }) => {
      const invitedBy = ctx.actor?.id ?? ctx.user.id;
      const r = await ctx.db.transaction((tx) => inviteMember(tx, { accountId: ctx.user.id, invitedBy, ...input }));
      const link = new URL('/team/accept', ctx.deps.config.publicUrl);
      link.searchParams.set('token', r.token);
      await ctx.deps.mailer.send(mailTemplates.teamInvite({ email: input.email, locale: r.locale }, link.toString(), r.accountName, input.role));
      return { invite: r.invite };
    }),
  revokeInvite: teamProcedure('team:manage')
    .input(teamInviteIdInput)
    .output(teamDeletedOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => revokeInvite(tx, ctx.user.id, input.id))),
  setRole: teamProcedure('team:manage')
    .input(teamMemberRoleInput)
    .output(teamSetRoleOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => setMemberRole(tx, ctx.user.id, input.id, input.role))),
  remove: teamProcedure('team:manage')
    .input(teamMemberInput)
    .output(teamDeletedOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => removeMember(tx, ctx.user.id, input.id))),
  /** The signed-in person joins: their own account, whatever account the call was switched to. */
  accept: userProcedure
    .input(acceptInviteInput)
    .output(teamMembershipOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => acceptInvite(tx, ctx.user, input.token))),
  /** The accounts the person may switch to. */
  memberships: userProcedure.output(teamMembershipsOutput).query(({ ctx }) => listMemberships(ctx.db, ctx.user.id)),
  /** GET /api/audit: who changed what on the account (owner and admins). */
  audit: teamProcedure('audit:read')
    .input(accountAuditInput)
    .output(teamAuditOutput)
    .query(({ ctx, input }) => listAccountAudit(ctx.db, ctx.user.id, input.limit)),
} satisfies TRPCRouterRecord;
