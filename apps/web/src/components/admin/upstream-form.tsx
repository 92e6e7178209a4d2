/** The upstream form: add one from a provider preset, or edit one (an empty password keeps the stored one). */
import { useState } from 'react';
import { useForm, type Resolver } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
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

export function UpstreamForm({ editing, onDone }: { editing: Upstream | null; onDone: () => void }) {
  const { t } = useTranslation('network');
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
      form.setError('root', { message: errorMessage(err, t('form.saveFailed')) });
    }
  };
  return (
    <Card title={editing ? t('form.editTitle', { name: editing.name }) : t('form.addTitle')} description={t('form.placeholderHint')}>
      <form onSubmit={(e) => void form.handleSubmit(onValid)(e)} noValidate data-testid="upstream-form">
        {errors.root?.message && <Alert kind="error">{errors.root.message}</Alert>}
        {!editing && (
          <SelectField
            label={t('form.preset')}
            value={preset}
            onChange={(e) => applyPreset(e.target.value)}
            hint={chosen ? t('form.presetHint', { account: chosen.account, docs: chosen.docs[0] ?? '' }) : t('form.presetAny')}
          >
            <option value="custom">{t('form.custom')}</option>
            {UPSTREAM_PRESETS.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </SelectField>
        )}
        <div className="grid-3">
          <Field label={t('form.name')} autoComplete="off" {...field('name')} />
          <SelectField label={t('form.protocol')} {...field('protocol')}>
            {UPSTREAM_PROTOCOL_OPTIONS.map((p) => (
              <option key={p} value={p}>
                {p === 'http' ? 'HTTP (CONNECT)' : 'SOCKS5'}
              </option>
            ))}
          </SelectField>
          <Field label={t('form.host')} autoComplete="off" {...field('host')} />
          <Field label={t('form.port')} inputMode="numeric" {...field('port')} />
          <Field label={t('form.usernameTemplate')} placeholder="cust-{country}-sess-{sid}" autoComplete="off" {...field('usernameTemplate')} />
          <Field
            label={t('form.passwordTemplate')}
            placeholder="{password}[_session-{sid}]"
            hint={t('form.passwordTemplateHint')}
            autoComplete="off"
            {...field('passwordTemplate')}
          />
          <Field
            label={t('form.password')}
            type="password"
            placeholder={editing?.hasPassword ? t('form.unchanged') : ''}
            autoComplete="new-password"
            {...field('password')}
          />
          <Field label={t('form.countries')} hint={t('form.countriesHint')} {...field('countries')} />
          <Field label={t('form.weight')} inputMode="numeric" {...field('weight')} />
          <Field label={t('form.cost')} inputMode="decimal" {...field('costPerGbCents')} />
          <Field
            label={t('form.longestSession')}
            inputMode="numeric"
            hint={chosen?.sessionDocs ? t('form.longestSessionProvider', { docs: chosen.sessionDocs }) : t('form.longestSessionHint')}
            {...field('maxSessionMinutes')}
          />
        </div>
        {editing ? (
          <SelectField label={t('form.state')} {...field('enabled')}>
            <option value="enabled">{t('form.enabled')}</option>
            <option value="disabled">{t('form.disabled')}</option>
          </SelectField>
        ) : (
          <p className="muted small" data-testid="upstream-saved-disabled">
            {t('form.savedDisabled')}
          </p>
        )}
        <EditActions editing={!!editing} saving={create.isPending || update.isPending} labels={[t('form.add'), t('form.save')]} onCancel={onDone} />
      </form>
    </Card>
  );
}
