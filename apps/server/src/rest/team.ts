import { z } from 'zod';
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
import { RestResponse, restRoute, withSuccess } from './rest';

/** Team members, invites and the account's audit log (docs/teams.md). */
export const teamRoutes = [
  restRoute(
    { method: 'GET', url: '/api/team', summary: "The account's team members and pending invites.", response: withSuccess(teamListOutput) },
    async (caller) => ({ success: true as const, ...(await caller.team.list()) }),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/api/team/invites',
      body: teamInviteInput,
      status: 201,
      summary: 'Invites a person by email with a role: a single-use link is mailed.',
      response: withSuccess(teamInviteAnswerOutput),
    },
    async (caller, input) => new RestResponse(201, { success: true as const, ...(await caller.team.invite(input)) }),
  ),
  restRoute(
    {
      method: 'DELETE',
      url: '/api/team/invites/:id',
      params: teamInviteIdInput,
      summary: 'Withdraws a pending invite.',
      response: withSuccess(teamDeletedOutput),
    },
    async (caller, input) => ({ success: true as const, ...(await caller.team.revokeInvite(input)) }),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/api/team/invites/accept',
      body: acceptInviteInput,
      summary: "Accepts an invite with the mailed link's token: the caller becomes a member of that account.",
      response: z.object({ success: z.literal(true), account: teamMembershipOutput }),
    },
    async (caller, input) => ({ success: true as const, account: await caller.team.accept(input) }),
  ),
  restRoute(
    {
      method: 'PATCH',
      url: '/api/team/members/:id',
      body: teamMemberRoleInput,
      pathParams: true,
      summary: "Changes a member's role.",
      response: z.object({ success: z.literal(true), member: teamSetRoleOutput }),
    },
    async (caller, input) => ({ success: true as const, member: await caller.team.setRole(input) }),
  ),
  restRoute(
    {
      method: 'DELETE',
      url: '/api/team/members/:id',
      params: teamMemberInput,
      summary: 'Removes a member: their sessions stop acting on the account at once.',
      response: withSuccess(teamDeletedOutput),
    },
    async (caller, input) => ({ success: true as const, ...(await caller.team.remove(input)) }),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/api/team/accounts',
      summary: 'The team accounts the caller is a member of, with their role in each.',
      response: withSuccess(teamMembershipsOutput),
    },
    async (caller) => ({ success: true as const, ...(await caller.team.memberships()) }),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/api/audit',
      query: accountAuditInput,
      summary: 'Who changed what on the account, newest first (owner and admins; kept 180 days).',
      response: withSuccess(teamAuditOutput),
    },
    async (caller, input) => ({ success: true as const, ...(await caller.team.audit(input)) }),
  ),
];
