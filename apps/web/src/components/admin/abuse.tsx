/**
 * Abuse reports: find the connections that hit a host (and its subdomains) or left through an exit
 * IP in a time range, with the customer behind each, and suspend a customer with a reason that is
 * also mailed to them.
 */
import { useState, type FormEvent } from 'react';
import { zodResolver } from '@hookform/resolvers/zod';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { roleMayUse, suspendUserInput, type AbuseLookupInput } from '@proxyhub/core';
import { formatBytes } from '../../lib/bytes';
import { errorMessage } from '../../lib/errors';
import { fmt } from '../../lib/format';
import { firstError, FormField, setFormError, submitWith, useSchemaForm } from '../../lib/form';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { DataTable, type Column } from '../data-table';
import { Alert, Button, Card } from '../ui';
import { FilterFields } from './filter-fields';
import { actionColumn } from './row-action';
import { when } from './format';

type Found = RouterOutputs['admin']['abuseLookup']['connections'][number];
type Suspect = { id: string; email: string };

type Form = Record<'target' | 'exitIp' | 'from' | 'to', string>;

const fields = (t: TFunction<'network'>) =>
  [
    { key: 'target', label: t('abuse.target'), placeholder: t('abuse.targetPlaceholder'), type: 'text' },
    { key: 'exitIp', label: t('abuse.exitIp'), placeholder: '203.0.113.7', type: 'text' },
    { key: 'from', label: t('abuse.from'), placeholder: '', type: 'datetime-local' },
    { key: 'to', label: t('abuse.to'), placeholder: '', type: 'datetime-local' },
  ] as const;

// Protocols and outcomes are the connection log's codes, shown as they are.
const columns = (t: TFunction<'network'>): Column<Found>[] => [
  { head: t('abuse.head.when'), cell: (c) => `${when(c.startedAt)} – ${fmt.time(c.endedAt)}` },
  {
    head: t('abuse.head.customer'),
    cell: (c) => (
      <>
        {c.email || c.userId} {c.userSuspended && <span className="badge badge-red">{t('abuse.suspended')}</span>}
      </>
    ),
  },
  { head: t('abuse.head.proxyAccount'), className: 'mono', cell: (c) => `${c.proxyUserId}${c.proxyAccountName ? ` (${c.proxyAccountName})` : ''}` },
  { head: t('abuse.head.target'), className: 'mono', cell: (c) => c.target },
  { head: t('abuse.head.exitIp'), className: 'mono', cell: (c) => c.exitIp || t('abuse.unknown') },
  { head: t('abuse.head.upDown'), num: true, cell: (c) => `${formatBytes(c.bytesUp)} / ${formatBytes(c.bytesDown)}` },
  { head: t('abuse.head.outcome'), cell: (c) => `${c.protocol}, ${c.outcome}` },
];

/** datetime-local is the admin's local time; the look-up takes ISO times. */
const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function AdminAbuse() {
  const { t } = useTranslation('network');
  const [form, setForm] = useState<Form>({ target: '', exitIp: '', from: '', to: '' });
  const [query, setQuery] = useState<AbuseLookupInput | null>(null);
  const [suspect, setSuspect] = useState<Suspect | null>(null);
  const me = trpc.admin.me.useQuery();
  const acts = !!me.data && roleMayUse(me.data.role, 'userActions');
  const found = trpc.admin.abuseLookup.useQuery(query!, { enabled: query !== null, staleTime: 0, retry: false });
  const search = (e: FormEvent) => {
    e.preventDefault();
    setSuspect(null);
    setQuery({ target: form.target.trim() || undefined, exitIp: form.exitIp.trim() || undefined, from: iso(form.from), to: iso(form.to) });
  };
  const foundColumns = columns(t);
  const shownColumns = acts
    ? [
        ...foundColumns,
        actionColumn<Found>(
          t('abuse.suspendWithReason'),
          (c) => c.email,
          (c) => !c.userSuspended,
          (c) => setSuspect({ id: c.userId, email: c.email }),
        ),
      ]
    : foundColumns;
  return (
    <div className="stack">
      <Card title={t('abuse.title')} description={t('abuse.description')}>
        <form className="stack" onSubmit={search} noValidate>
          <FilterFields className="grid-2-tight" fields={fields(t)} values={form} onChange={setForm} />
          <div>
            <Button type="submit" loading={found.isFetching}>
              {t('abuse.search')}
            </Button>
          </div>
        </form>
        {found.error && <Alert kind="error">{errorMessage(found.error, t('abuse.failed'))}</Alert>}
        {query && <DataTable testId="abuse-table" columns={shownColumns} rows={found.data?.connections} rowKey={(c) => c.id} empty={t('abuse.empty')} />}
      </Card>
      {suspect && (
        <SuspendWithReason
          key={suspect.id}
          suspect={suspect}
          onDone={async () => {
            setSuspect(null);
            await found.refetch();
          }}
        />
      )}
    </div>
  );
}

const suspendResolver = zodResolver(suspendUserInput);

function SuspendWithReason({ suspect, onDone }: { suspect: Suspect; onDone: () => Promise<void> }) {
  const { t } = useTranslation('network');
  const form = useSchemaForm(suspendResolver, { id: suspect.id, reason: '', notifyCustomer: true });
  const suspend = trpc.admin.suspendUser.useMutation();
  const onSubmit = submitWith(
    form,
    async (input) => {
      try {
        await suspend.mutateAsync(input);
        await onDone();
      } catch (err) {
        setFormError(form, errorMessage(err, t('abuse.suspendFailed')));
      }
    },
    t('abuse.suspendFailed'),
  );
  const error = firstError(form);
  return (
    <Card title={t('abuse.suspendTitle', { email: suspect.email })} description={t('abuse.suspendDescription')}>
      <form onSubmit={onSubmit} noValidate>
        {error && <Alert kind="error">{error}</Alert>}
        <FormField form={form} name="reason" showError={false} label={t('abuse.reason')} />
        <Button type="submit" variant="danger" loading={suspend.isPending}>
          {t('abuse.suspend')}
        </Button>
      </form>
    </Card>
  );
}
