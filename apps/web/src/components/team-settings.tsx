/**
 * Settings → Team: the account's members and pending invites, an invite form on the procedure's
 * own schema, a role per member and Remove (owner and admins; docs/teams.md).
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { accountAuditKey, TEAM_ROLES, teamInviteInput, type TeamRole, type TeamInviteInput, type TeamInviteValues } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
import type { RouterOutputs } from '../session';
import { trpc } from '../trpc';
import { DataTable, type Column } from './data-table';
import { Alert, Button, Card, Field, SelectField } from './ui';

type Team = RouterOutputs['team']['list'];

export function TeamSettings() {
  const { t } = useTranslation('settings');
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
      setNotice({ kind: 'success', text: t('team.sent', { email: v.email }) });
      form.reset({ email: '', role: v.role });
      await team.refetch();
    } catch (err) {
      form.setError('email', { message: errorMessage(err, t('team.sendFailed')) });
    }
  });

  const memberColumns: Column<Team['members'][number]>[] = [
    { head: t('words.name'), cell: (m) => m.name },
    { head: t('words.email'), cell: (m) => m.email },
    {
      head: t('words.role'),
      cell: (m) => (
        <select
          aria-label={t('team.roleOf', { email: m.email })}
          value={m.role}
          onChange={(e) =>
            void act(
              () => setRole.mutateAsync({ id: m.id, role: e.target.value }),
              t('team.roleChanged', { email: m.email, role: roleName(t, e.target.value) }),
              t('team.roleFailed'),
            )
          }
        >
          {TEAM_ROLES.map((r) => (
            <option key={r} value={r}>
              {t(`team.roles.${r}`)}
            </option>
          ))}
        </select>
      ),
    },
    {
      head: <span className="sr-only">{t('words.actions')}</span>,
      cell: (m) => (
        <Button
          variant="secondary"
          onClick={() => void act(() => remove.mutateAsync({ id: m.id }), t('team.removed', { email: m.email }), t('team.removeFailed'))}
        >
          {t('words.remove')}
        </Button>
      ),
    },
  ];
  const inviteColumns: Column<Team['invites'][number]>[] = [
    { head: t('words.email'), cell: (i) => i.email },
    { head: t('words.role'), cell: (i) => roleName(t, i.role) },
    { head: t('words.expires'), cell: (i) => fmt.dateTime(i.expiresAt) },
    {
      head: <span className="sr-only">{t('words.actions')}</span>,
      cell: (i) => (
        <Button
          variant="secondary"
          onClick={() => void act(() => revoke.mutateAsync({ id: i.id }), t('team.withdrawn', { email: i.email }), t('team.withdrawFailed'))}
        >
          {t('team.withdraw')}
        </Button>
      ),
    },
  ];
  const errors = form.formState.errors;
  return (
    <Card title={t('team.title')} description={t('team.description')}>
      <form className="form inline-form" onSubmit={(e) => void onInvite(e)} noValidate aria-label={t('team.formLabel')}>
        <Field label={t('words.email')} type="email" autoComplete="off" error={errors.email?.message} {...form.register('email')} />
        <SelectField label={t('words.role')} error={errors.role?.message} {...form.register('role')}>
          {TEAM_ROLES.map((r) => (
            <option key={r} value={r}>
              {t(`team.roleLabels.${r}`)}
            </option>
          ))}
        </SelectField>
        <Button type="submit" loading={invite.isPending}>
          {t('team.send')}
        </Button>
      </form>
      {notice && (
        <Alert kind={notice.kind} onDismiss={() => setNotice(null)}>
          {notice.text}
        </Alert>
      )}
      {team.error && <Alert kind="error">{errorMessage(team.error, t('team.loadFailed'))}</Alert>}
      <DataTable
        label={t('team.members')}
        columns={memberColumns}
        rows={team.data?.members ?? []}
        rowKey={(m) => m.id}
        rowProps={() => ({ 'data-testid': 'team-member' })}
        loading={team.isLoading ? t('words.loading') : undefined}
        empty={t('team.empty')}
      />
      {(team.data?.invites.length ?? 0) > 0 && (
        <DataTable
          label={t('team.invites')}
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

/** A role's name in the language on show; one the list does not know stays as it came. */
const roleName = (t: TFunction<'settings'>, role: string) => ((TEAM_ROLES as readonly string[]).includes(role) ? t(`team.roles.${role as TeamRole}`) : role);

type Entry = RouterOutputs['team']['audit']['entries'][number];

/**
 * "Dana created the proxy account scraper" in the language on show: core's sentence
 * (`accountAuditSentence`) with each action's words from the catalogue, keyed by the action.
 */
function auditSentence(t: TFunction<'settings'>, e: Entry): string {
  const who = e.actor.kind === 'key' ? t('audit.byKey', { name: e.actor.name }) : e.actor.name;
  const action = t(`audit.actions.${accountAuditKey(e.action)}`);
  return e.target ? t('audit.sentenceWithTarget', { who, action, target: e.target }) : t('audit.sentence', { who, action });
}

/** Settings → Audit: who changed what on the account, newest first, kept 180 days. */
export function AuditSettings() {
  const { t } = useTranslation('settings');
  const audit = trpc.team.audit.useQuery({ limit: 200 }, { staleTime: 0 });
  const columns: Column<Entry>[] = [
    { head: t('audit.when'), cell: (e) => fmt.dateTime(e.at) },
    { head: t('audit.what'), cell: (e) => auditSentence(t, e) },
    // The stable name a program matches in GET /api/audit.
    { head: t('audit.action'), cell: (e) => <code>{e.action}</code> },
  ];
  return (
    <Card title={t('audit.title')} description={t('audit.description')}>
      {audit.error && <Alert kind="error">{errorMessage(audit.error, t('audit.loadFailed'))}</Alert>}
      <DataTable
        label={t('audit.listLabel')}
        columns={columns}
        rows={audit.data?.entries ?? []}
        rowKey={(e) => `${e.at}-${e.actor.id}-${e.action}`}
        rowProps={() => ({ 'data-testid': 'audit-entry' })}
        loading={audit.isLoading ? t('words.loading') : undefined}
        empty={t('audit.empty')}
      />
    </Card>
  );
}
