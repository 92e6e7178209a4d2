/** The upstream form: add one from a provider preset, or edit one (an empty password keeps the stored one). */
import { useState } from 'react';
import { useForm, type Resolver } from 'react-hook-form';
import {
  centsToUsd,
  createUpstreamInput,
  updateUpstreamInput,
  UPSTREAM_PRESETS,
  UPSTREAM_PROTOCOL_OPTIONS,
  usdToCents,
  type CreateUpstreamInput,
  type UpdateUpstreamInput,
} from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { issueMessages } from '../../lib/form';
import type { RouterOutputs } from '../../session';
import { trpc } from '../../trpc';
import { Alert, Card, EditActions, Field, SelectField } from '../ui';

type Upstream = RouterOutputs['admin']['upstreams']['upstreams'][number];

/** What the inputs hold: text as typed; the resolver turns it into the schema's input. */
interface FormValues {
  name: string;
  protocol: (typeof UPSTREAM_PROTOCOL_OPTIONS)[number];
  host: string;
  port: string;
  usernameTemplate: string;
  passwordTemplate: string;
  password: string;
  countries: string;
  weight: string;
  /** In dollars as typed; the API takes cents. */
  costPerGbCents: string;
  maxSessionMinutes: string;
  enabled: 'enabled' | 'disabled';
}

const EMPTY: FormValues = {
  name: '',
  protocol: 'http',
  host: '',
  port: '',
  usernameTemplate: '',
  passwordTemplate: '',
  password: '',
  countries: '',
  weight: '1',
  costPerGbCents: '0.00',
  maxSessionMinutes: '',
  enabled: 'disabled',
};

const valuesOf = (u: Upstream): FormValues => ({
  name: u.name,
  protocol: u.protocol,
  host: u.host,
  port: String(u.port),
  usernameTemplate: u.usernameTemplate,
  passwordTemplate: u.passwordTemplate,
  password: '',
  countries: u.countries?.join(', ') ?? '',
  weight: String(u.weight),
  costPerGbCents: centsToUsd(u.costPerGbCents),
  maxSessionMinutes: u.maxSessionMinutes === null ? '' : String(u.maxSessionMinutes),
  enabled: u.enabled ? 'enabled' : 'disabled',
});

/** The form's text as the schema's input: numbers as numbers, "US, DE" as a list, empty as all. */
const inputOf = (v: FormValues) => ({
  name: v.name,
  protocol: v.protocol,
  host: v.host,
  port: v.port.trim() === '' ? NaN : Number(v.port),
  usernameTemplate: v.usernameTemplate,
  passwordTemplate: v.passwordTemplate,
  countries: v.countries.trim() ? v.countries.split(/[\s,]+/).filter(Boolean) : null,
  weight: Number(v.weight),
  costPerGbCents: usdToCents(v.costPerGbCents),
  maxSessionMinutes: v.maxSessionMinutes.trim() === '' ? null : Number(v.maxSessionMinutes),
});

const FIELD_NAMES = Object.keys(EMPTY) as (keyof FormValues)[];

/**
 * The procedure's own core schema on the form's values reshaped: the messages are the server's,
 * each under its field. Editing, an empty password keeps the stored one.
 */
function upstreamResolver(editing: Upstream | null): Resolver<FormValues, unknown, CreateUpstreamInput | UpdateUpstreamInput> {
  return (values) => {
    const input = inputOf(values);
    // The state goes only when the admin changed it: the row opened may predate an Enable pressed a
    // moment before, and saving a price must not switch the upstream back off.
    const enabled = values.enabled === 'enabled';
    const parsed = editing
      ? updateUpstreamInput.safeParse({
          id: editing.id,
          ...input,
          ...(enabled !== editing.enabled ? { enabled } : {}),
          ...(values.password ? { password: values.password } : {}),
        })
      : // A new upstream is always saved disabled (the schema's default): enabled from its row after a Test.
        createUpstreamInput.safeParse({ ...input, password: values.password });
    return parsed.success ? { values: parsed.data, errors: {} } : { values: {}, errors: issueMessages(parsed.error.issues, FIELD_NAMES) };
  };
}

const PLACEHOLDER_HINT =
  'Placeholders {country} {state} {city} {zip} {asn} {session} {sid} {minutes} {seconds} {hard}; filters |name |lower |upper |snake |compact |plus |flag; [ ... ] is left out when a placeholder in it is empty.';

export function UpstreamForm({ editing, onDone }: { editing: Upstream | null; onDone: () => void }) {
  const form = useForm<FormValues, unknown, CreateUpstreamInput | UpdateUpstreamInput>({
    resolver: upstreamResolver(editing),
    defaultValues: editing ? valuesOf(editing) : EMPTY,
    mode: 'onSubmit',
    reValidateMode: 'onSubmit',
  });
  const [preset, setPreset] = useState('custom');
  const utils = trpc.useUtils();
  const create = trpc.admin.createUpstream.useMutation();
  const update = trpc.admin.updateUpstream.useMutation();
  const errors = form.formState.errors;
  const field = (name: keyof FormValues) => ({ ...form.register(name, { onChange: () => form.clearErrors(name) }), error: errors[name]?.message });
  /** A preset fills the endpoint and both templates; the admin then fills in the account part. */
  function applyPreset(id: string) {
    setPreset(id);
    const p = UPSTREAM_PRESETS.find((x) => x.id === id);
    if (!p) return;
    if (!form.getValues('name')) form.setValue('name', p.label);
    form.setValue('protocol', p.protocol);
    form.setValue('host', p.host);
    form.setValue('port', String(p.port));
    form.setValue('usernameTemplate', p.usernameTemplate);
    form.setValue('passwordTemplate', p.passwordTemplate);
    form.setValue('maxSessionMinutes', p.maxSessionMinutes === null ? '' : String(p.maxSessionMinutes));
    form.clearErrors();
  }
  const chosen = UPSTREAM_PRESETS.find((x) => x.id === preset);
  const onValid = async (data: CreateUpstreamInput | UpdateUpstreamInput) => {
    try {
      if (editing) await update.mutateAsync(data as UpdateUpstreamInput);
      else await create.mutateAsync(data as CreateUpstreamInput);
      form.reset(EMPTY);
      setPreset('custom');
      await utils.admin.upstreams.invalidate();
      onDone();
    } catch (err) {
      form.setError('root', { message: errorMessage(err, 'Saving the upstream failed') });
    }
  };
  return (
    <Card title={editing ? `Edit ${editing.name}` : 'Add an upstream'} description={PLACEHOLDER_HINT}>
      <form onSubmit={(e) => void form.handleSubmit(onValid)(e)} noValidate data-testid="upstream-form">
        {errors.root?.message && <Alert kind="error">{errors.root.message}</Alert>}
        {!editing && (
          <SelectField
            label="Provider preset"
            value={preset}
            onChange={(e) => applyPreset(e.target.value)}
            hint={chosen ? `Replace ${chosen.account} with your account's; from ${chosen.docs[0]}` : 'Any provider: write both templates yourself.'}
          >
            <option value="custom">Custom</option>
            {UPSTREAM_PRESETS.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </SelectField>
        )}
        <div className="grid-3">
          <Field label="Name" autoComplete="off" {...field('name')} />
          <SelectField label="Protocol" {...field('protocol')}>
            {UPSTREAM_PROTOCOL_OPTIONS.map((p) => (
              <option key={p} value={p}>
                {p === 'http' ? 'HTTP (CONNECT)' : 'SOCKS5'}
              </option>
            ))}
          </SelectField>
          <Field label="Host" autoComplete="off" {...field('host')} />
          <Field label="Port" inputMode="numeric" {...field('port')} />
          <Field label="Username template" placeholder="cust-{country}-sess-{sid}" autoComplete="off" {...field('usernameTemplate')} />
          <Field
            label="Password template"
            placeholder="{password}[_session-{sid}]"
            hint="Empty: the password as it is"
            autoComplete="off"
            {...field('passwordTemplate')}
          />
          <Field label="Password" type="password" placeholder={editing?.hasPassword ? 'Unchanged' : ''} autoComplete="new-password" {...field('password')} />
          <Field label="Countries" hint="Codes like US, DE; empty for all" {...field('countries')} />
          <Field label="Weight" inputMode="numeric" {...field('weight')} />
          <Field label="Cost per GB ($)" inputMode="decimal" {...field('costPerGbCents')} />
          <Field
            label="Longest session (minutes)"
            inputMode="numeric"
            hint={
              chosen?.sessionDocs ? `The provider's longest, from ${chosen.sessionDocs}; empty for none` : 'Longer lines are sent with this; empty for none'
            }
            {...field('maxSessionMinutes')}
          />
        </div>
        {editing ? (
          <SelectField label="State" {...field('enabled')}>
            <option value="enabled">Enabled</option>
            <option value="disabled">Disabled</option>
          </SelectField>
        ) : (
          <p className="muted small" data-testid="upstream-saved-disabled">
            A new upstream is saved disabled: press Test on its row, and Enable it once the test works.
          </p>
        )}
        <EditActions editing={!!editing} saving={create.isPending || update.isPending} labels={['Add upstream', 'Save upstream']} onCancel={onDone} />
      </form>
    </Card>
  );
}
