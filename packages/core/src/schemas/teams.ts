import { z } from 'zod';
import type { AccountAuditAction } from '../account-audit';
import { ACCOUNT_ADMIN_SCOPE, API_KEY_SCOPES, type ApiKeyScope, type RequiredScope } from './api-keys';
import { emailField } from './auth';

/**
 * Team members: people with their own account who act on another (the team's) account within a
 * role. Each role is a set of the API-key scopes (docs/teams.md).
 */
export const TEAM_ROLES = ['admin', 'developer', 'finance', 'viewer'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/** The header a member's calls carry to act on a team's account instead of their own. */
export const ACCOUNT_HEADER = 'x-proxyhub-account';

const VIEWER: readonly ApiKeyScope[] = ['usage:read', 'accounts:read'];
/** What each role may do, as key scopes. Team management and account administration are not scopes. */
export const TEAM_ROLE_SCOPES: Record<TeamRole, readonly ApiKeyScope[]> = {
  viewer: VIEWER,
  developer: [...VIEWER, 'accounts:write', 'lines:generate'],
  finance: ['usage:read', 'billing:write'],
  admin: API_KEY_SCOPES,
};

export const TEAM_ROLE_LABELS: Record<TeamRole, string> = {
  admin: 'Admin: everything but deleting the account',
  developer: 'Developer: proxy accounts, lines, allow-list, target rules, API keys',
  finance: 'Finance: orders, codes and billing',
  viewer: 'Viewer: reads usage, connections, statements and billing',
};

/** What a member acting on a team's account may not do without the right, in a refusal's words. */
export type TeamRight = RequiredScope | 'team:manage' | 'keys:manage' | 'audit:read';
const ACTIONS: Record<TeamRight, string> = {
  'usage:read': 'read usage and billing',
  'accounts:read': 'read proxy accounts',
  'accounts:write': 'change proxy accounts',
  'lines:generate': 'generate proxy lines',
  'billing:write': 'spend the balance',
  [ACCOUNT_ADMIN_SCOPE]: "administer the team's account",
  'team:manage': 'manage the team',
  'keys:manage': 'manage API keys',
  'audit:read': 'read the audit log',
};
export const roleRefusal = (role: TeamRole, right: TeamRight) => `Your role (${role}) cannot ${ACTIONS[right]}`;

/** Whether a role may do this on the team's account. */
export function roleAllows(role: TeamRole, right: TeamRight): boolean {
  if (role === 'admin') return right !== ACCOUNT_ADMIN_SCOPE;
  if (right === 'keys:manage') return role === 'developer';
  return (TEAM_ROLE_SCOPES[role] as readonly string[]).includes(right);
}

const roleField = z.string({ error: 'Role is required' }).refine((r): r is TeamRole => (TEAM_ROLES as readonly string[]).includes(r), {
  error: (i) => `Unknown role: ${String(i.input).slice(0, 40)} (roles are ${TEAM_ROLES.join(', ')})`,
});

/** POST /api/team/invites */
export const teamInviteInput = z.object({ email: emailField, role: roleField });
export type TeamInviteInput = z.input<typeof teamInviteInput>;
export type TeamInviteValues = z.output<typeof teamInviteInput>;
/** PATCH /api/team/members/:id */
export const teamMemberRoleInput = z.object({ id: z.uuid({ error: 'Member not found' }), role: roleField });
/** DELETE /api/team/members/:id */
export const teamMemberInput = z.object({ id: z.uuid({ error: 'Member not found' }) });
/** DELETE /api/team/invites/:id */
export const teamInviteIdInput = z.object({ id: z.uuid({ error: 'Invite not found' }) });
/** POST /api/team/invites/accept: the token from the mailed link. */
export const acceptInviteInput = z.object({
  token: z.string({ error: 'Invite link is invalid' }).trim().min(1, 'Invite link is invalid').max(200, 'Invite link is invalid'),
});
/** GET /api/audit */
export const accountAuditInput = z.object({
  limit: z.coerce
    .number({ error: 'Limit must be a whole number from 1 to 500' })
    .int('Limit must be a whole number from 1 to 500')
    .min(1, 'Limit must be a whole number from 1 to 500')
    .max(500, 'Limit must be a whole number from 1 to 500')
    .default(100),
});

export const INVITE_SELF = 'You cannot invite yourself: your own account is already yours';
export const INVITE_MEMBER_EXISTS = 'That person is already a member of this account';
export const INVITE_INVALID = 'This invite link is invalid, used or expired';
export const INVITE_OTHER_EMAIL = 'This invite was sent to another email address: sign in with that one';
export const MEMBER_NOT_FOUND = 'Member not found';
export const NOT_A_MEMBER = 'You are not a member of that account';
/** Invites stay good this long. */
export const TEAM_INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** The customer audit log keeps this many days. */
export const ACCOUNT_AUDIT_DAYS = 180;

export interface TeamMemberView {
  id: string;
  userId: string;
  name: string;
  email: string;
  role: TeamRole;
  createdAt: string;
}
export interface TeamInviteView {
  id: string;
  email: string;
  role: TeamRole;
  createdAt: string;
  expiresAt: string;
}
export interface MembershipView {
  accountId: string;
  name: string;
  role: TeamRole;
}
export interface AccountAuditEntry {
  at: string;
  actor: { kind: 'member' | 'key'; id: string; name: string };
  action: AccountAuditAction;
  target: string | null;
}
