import { z } from 'zod';
import { ACCOUNT_AUDIT_ACTIONS } from '../../account-audit';
import { TEAM_ROLES } from '../teams';

/** What the `team.*` procedures answer (the REST paths under /api/team and /api/audit document the same). */

const role = z.enum(TEAM_ROLES);
export const teamMemberOutput = z.object({ id: z.string(), userId: z.string(), name: z.string(), email: z.string(), role, createdAt: z.string() });
export const teamInviteOutput = z.object({ id: z.string(), email: z.string(), role, createdAt: z.string(), expiresAt: z.string() });
export const teamMembershipOutput = z.object({ accountId: z.string(), name: z.string(), role });

export const teamListOutput = z.object({ members: z.array(teamMemberOutput), invites: z.array(teamInviteOutput) });
export const teamInviteAnswerOutput = z.object({ invite: teamInviteOutput });
export const teamDeletedOutput = z.object({ deleted: z.literal(true) });
export const teamSetRoleOutput = z.object({ id: z.string(), role });
export const teamMembershipsOutput = z.object({ accounts: z.array(teamMembershipOutput) });
export const teamAuditOutput = z.object({
  entries: z.array(
    z.object({
      at: z.string(),
      actor: z.object({ kind: z.enum(['member', 'key']), id: z.string(), name: z.string() }),
      action: z.enum(ACCOUNT_AUDIT_ACTIONS),
      /** What the change named, readably: a name, an address, a proxy user id; null when the action says it all. */
      target: z.string().nullable(),
    }),
  ),
});
