/**
 * Settings → Team: the account's members and pending invites, an invite form on the procedure's
 * own schema, a role per member and Remove (owner and admins; docs/teams.md).
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { accountAuditSentence, TEAM_ROLE_LABELS, TEAM_ROLES, teamInviteInput, type TeamInviteInput, type TeamInviteValues } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { DataTable, type Column } from './data-table';
import { Alert, Button, Card, Field, SelectField } from './ui';

type Team = RouterOutputs['team']['list'];

export function TeamSettings() {
  const team = trpc.team.list.useQuery(undefined, { staleTime: 0 });
  const invite = trpc.team.invite.useMutation();
  const setRole = trpc.team.setRole.useMutation();
  const remove = trpc.team.remove.useMutation();
  const revoke = trpc.team.revokeInvite.useMutation();
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const form = useForm<TeamInviteInput, unknown, TeamInviteValues>({ resolver: zodResolver(teamInviteInput), defaultValues: { email: '', role: 'developer' } });

  const act = async (what: () => Promise<unknown>, done: string, failed: string) => {
    setNotice(null);
    try {
      await what();
      setNotice({ kind: 'success', text: done });
    } catch (err) {
      setNotice({ kind: 'error', text: errorMessage(err, failed) });
    }
    await team.refetch();
  };
  const onInvite = form.handleSubmit(async (v) => {
    setNotice(null);
    try {
      await invite.mutateAsync(v);
      setNotice({ kind: 'success', text: `Invite sent to ${v.email}.` });
      form.reset({ email: '', role: v.role });
      await team.refetch();
    } catch (err) {
      form.setError('email', { message: errorMessage(err, 'Sending the invite failed') });
    }
  });

  const memberColumns: Column<Team['members'][number]>[] = [
    { head: 'Name', cell: (m) => m.name },
    { head: 'Email', cell: (m) => m.email },
    {
      head: 'Role',
      cell: (m) => (
        <select
          aria-label={`Role of ${m.email}`}
          value={m.role}
          onChange={(e) =>
            void act(() => setRole.mutateAsync({ id: m.id, role: e.target.value }), `${m.email} is now ${e.target.value}.`, 'Changing the role failed')
          }
        >
          {TEAM_ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      ),
    },
    {
      head: <span className="sr-only">Actions</span>,
      cell: (m) => (
        <Button variant="secondary" onClick={() => void act(() => remove.mutateAsync({ id: m.id }), `${m.email} was removed.`, 'Removing the member failed')}>
          Remove
        </Button>
      ),
    },
  ];
  const inviteColumns: Column<Team['invites'][number]>[] = [
    { head: 'Email', cell: (i) => i.email },
    { head: 'Role', cell: (i) => i.role },
    { head: 'Expires', cell: (i) => new Date(i.expiresAt).toLocaleString() },
    {
      head: <span className="sr-only">Actions</span>,
      cell: (i) => (
        <Button
          variant="secondary"
          onClick={() => void act(() => revoke.mutateAsync({ id: i.id }), `The invite to ${i.email} was withdrawn.`, 'Withdrawing the invite failed')}
        >
          Withdraw
        </Button>
      ),
    },
  ];
  const errors = form.formState.errors;
  return (
    <Card
      title="Team"
      description="People who sign in with their own account and act on this one within a role. They switch to it in the sidebar; removing someone ends their access at once."
    >
      <form className="form inline-form" onSubmit={(e) => void onInvite(e)} noValidate aria-label="Invite a member">
        <Field label="Email" type="email" autoComplete="off" error={errors.email?.message} {...form.register('email')} />
        <SelectField label="Role" error={errors.role?.message} {...form.register('role')}>
          {TEAM_ROLES.map((r) => (
            <option key={r} value={r}>
              {TEAM_ROLE_LABELS[r]}
            </option>
          ))}
        </SelectField>
        <Button type="submit" loading={invite.isPending}>
          Send Invite
        </Button>
      </form>
      {notice && (
        <Alert kind={notice.kind} onDismiss={() => setNotice(null)}>
          {notice.text}
        </Alert>
      )}
      {team.error && <Alert kind="error">{errorMessage(team.error, 'The team could not be loaded')}</Alert>}
      <DataTable
        label="Members"
        columns={memberColumns}
        rows={team.data?.members ?? []}
        rowKey={(m) => m.id}
        rowProps={() => ({ 'data-testid': 'team-member' })}
        loading={team.isLoading ? 'Loading...' : undefined}
        empty="No members yet."
      />
      {(team.data?.invites.length ?? 0) > 0 && (
        <DataTable
          label="Pending invites"
          columns={inviteColumns}
          rows={team.data!.invites}
          rowKey={(i) => i.id}
          rowProps={() => ({ 'data-testid': 'team-invite' })}
          empty={null}
        />
      )}
    </Card>
  );
}

type Entry = RouterOutputs['team']['audit']['entries'][number];
const AUDIT_COLUMNS: Column<Entry>[] = [
  { head: 'When', cell: (e) => new Date(e.at).toLocaleString() },
  { head: 'What happened', cell: (e) => accountAuditSentence(e) },
  // The stable name a program matches in GET /api/audit.
  { head: 'Action', cell: (e) => <code>{e.action}</code> },
];

/** Settings → Audit: who changed what on the account, newest first, kept 180 days. */
export function AuditSettings() {
  const audit = trpc.team.audit.useQuery({ limit: 200 }, { staleTime: 0 });
  return (
    <Card title="Audit Log" description="Every change made on this account, by a person (you or a member) or an API key, for 180 days. Reads are not listed.">
      {audit.error && <Alert kind="error">{errorMessage(audit.error, 'The audit log could not be loaded')}</Alert>}
      <DataTable
        label="Audit log"
        columns={AUDIT_COLUMNS}
        rows={audit.data?.entries ?? []}
        rowKey={(e) => `${e.at}-${e.actor.id}-${e.action}`}
        rowProps={() => ({ 'data-testid': 'audit-entry' })}
        loading={audit.isLoading ? 'Loading...' : undefined}
        empty="Nothing changed yet."
      />
    </Card>
  );
}
