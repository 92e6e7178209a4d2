/**
 * Abuse reports: find the connections that hit a host (and its subdomains) or left through an exit
 * IP in a time range, with the customer behind each, and suspend a customer with a reason that is
 * also mailed to them.
 */
import { useState, type FormEvent } from 'react';
import { zodResolver } from '@hookform/resolvers/zod';
import { roleMayUse, suspendUserInput, type AbuseLookupInput } from '@proxyhub/core';
import { formatBytes } from '../../lib/bytes';
import { errorMessage } from '../../lib/errors';
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

const FIELDS = [
  { key: 'target', label: 'Target host', placeholder: 'bank.example (subdomains too)', type: 'text' },
  { key: 'exitIp', label: 'Exit IP', placeholder: '203.0.113.7', type: 'text' },
  { key: 'from', label: 'From', placeholder: '', type: 'datetime-local' },
  { key: 'to', label: 'To', placeholder: '', type: 'datetime-local' },
] as const;
type Form = Record<(typeof FIELDS)[number]['key'], string>;

const COLUMNS: Column<Found>[] = [
  { head: 'When', cell: (c) => `${when(c.startedAt)} – ${new Date(c.endedAt).toLocaleTimeString()}` },
  {
    head: 'Customer',
    cell: (c) => (
      <>
        {c.email || c.userId} {c.userSuspended && <span className="badge badge-red">Suspended</span>}
      </>
    ),
  },
  { head: 'Proxy account', className: 'mono', cell: (c) => `${c.proxyUserId}${c.proxyAccountName ? ` (${c.proxyAccountName})` : ''}` },
  { head: 'Target', className: 'mono', cell: (c) => c.target },
  { head: 'Exit IP', className: 'mono', cell: (c) => c.exitIp || 'unknown' },
  { head: 'Up / down', num: true, cell: (c) => `${formatBytes(c.bytesUp)} / ${formatBytes(c.bytesDown)}` },
  { head: 'Outcome', cell: (c) => `${c.protocol}, ${c.outcome}` },
];

/** datetime-local is the admin's local time; the look-up takes ISO times. */
const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function AdminAbuse() {
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
  const columns = acts
    ? [
        ...COLUMNS,
        actionColumn<Found>(
          'Suspend with reason',
          (c) => c.email,
          (c) => !c.userSuspended,
          (c) => setSuspect({ id: c.userId, email: c.email }),
        ),
      ]
    : COLUMNS;
  return (
    <div className="stack">
      <Card
        title="Abuse look-up"
        description="Connections from the connection log (30 days) that hit a host or its subdomains, or left through one of our exit IPs. Exit IPs are known for direct connections only."
      >
        <form className="stack" onSubmit={search} noValidate>
          <FilterFields className="grid-2-tight" fields={FIELDS} values={form} onChange={setForm} />
          <div>
            <Button type="submit" loading={found.isFetching}>
              Search
            </Button>
          </div>
        </form>
        {found.error && <Alert kind="error">{errorMessage(found.error, 'The look-up failed')}</Alert>}
        {query && <DataTable testId="abuse-table" columns={columns} rows={found.data?.connections} rowKey={(c) => c.id} empty="No connections match." />}
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
  const form = useSchemaForm(suspendResolver, { id: suspect.id, reason: '', notifyCustomer: true });
  const suspend = trpc.admin.suspendUser.useMutation();
  const onSubmit = submitWith(
    form,
    async (input) => {
      try {
        await suspend.mutateAsync(input);
        await onDone();
      } catch (err) {
        setFormError(form, errorMessage(err, 'The suspension failed'));
      }
    },
    'The suspension failed',
  );
  const error = firstError(form);
  return (
    <Card
      title={`Suspend ${suspect.email}`}
      description="Sign-in, the API key and the proxies stop within seconds; the reason is mailed to the customer and kept in the audit log."
    >
      <form onSubmit={onSubmit} noValidate>
        {error && <Alert kind="error">{error}</Alert>}
        <FormField form={form} name="reason" showError={false} label="Reason for the customer" />
        <Button type="submit" variant="danger" loading={suspend.isPending}>
          Suspend and mail the reason
        </Button>
      </form>
    </Card>
  );
}
