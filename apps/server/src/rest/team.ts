import { acceptInviteInput, accountAuditInput, teamInviteIdInput, teamInviteInput, teamMemberInput, teamMemberRoleInput } from '@proxyhub/core';
import { RestResponse, restRoute } from './rest';

/** Team members, invites and the account's audit log (docs/teams.md). */
export const teamRoutes = [
  restRoute({ method: 'GET', url: '/api/team' }, async (caller) => ({ success: true, ...(await caller.team.list()) })),
  restRoute(
    { method: 'POST', url: '/api/team/invites', body: teamInviteInput },
    async (caller, input) => new RestResponse(201, { success: true, ...(await caller.team.invite(input)) }),
  ),
  restRoute({ method: 'DELETE', url: '/api/team/invites/:id', params: teamInviteIdInput }, async (caller, input) => ({
    success: true,
    ...(await caller.team.revokeInvite(input)),
  })),
  restRoute({ method: 'POST', url: '/api/team/invites/accept', body: acceptInviteInput }, async (caller, input) => ({
    success: true,
    account: await caller.team.accept(input),
  })),
  restRoute({ method: 'PATCH', url: '/api/team/members/:id', body: teamMemberRoleInput, pathParams: true }, async (caller, input) => ({
    success: true,
    member: await caller.team.setRole(input),
  })),
  restRoute({ method: 'DELETE', url: '/api/team/members/:id', params: teamMemberInput }, async (caller, input) => ({
    success: true,
    ...(await caller.team.remove(input)),
  })),
  restRoute({ method: 'GET', url: '/api/team/accounts' }, async (caller) => ({ success: true, ...(await caller.team.memberships()) })),
  restRoute({ method: 'GET', url: '/api/audit', query: accountAuditInput }, async (caller, input) => ({ success: true, ...(await caller.team.audit(input)) })),
];
