/** The Generate Codes tab: a batch of top-up codes, listed to copy one by one or all at once. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useTranslation } from 'react-i18next';
import { CODE_MAX_QUANTITY, CODE_MIN_CREDITS_GB, createCodesInput } from '@proxyhub/core';
import { fmt } from '../../lib/format';
import { errorMessage, isUnauthorized } from '../../lib/errors';
import { FormField, formError, NumberField, setFormError, submitWith, useSchemaForm } from '../../lib/form';
import { trpc } from '../../trpc';
import { Alert, Button, Card, CopyButton } from '../ui';
import { when } from './format';
import type { AdminShared } from './tab';

const resolver = zodResolver(createCodesInput);

export function GenerateCodes({ shared }: { shared: AdminShared }) {
  const { t } = useTranslation('admin');
  const { list: codes, set: onCodes } = shared.codes;
  const form = useSchemaForm(resolver, { creditsGB: 1, quantity: 1, expiresAt: null });
  const create = trpc.admin.createCodes.useMutation();
  const utils = trpc.useUtils();

  const onSubmit = submitWith(
    form,
    async (input) => {
      try {
        const r = await create.mutateAsync(input);
        onCodes(r.codes);
        void utils.admin.users.invalidate();
      } catch (err) {
        if (isUnauthorized(err)) return shared.onSignedOut();
        setFormError(form, errorMessage(err, t('generate.failed')));
      }
    },
    t('generate.failed'),
  );

  const error = formError(form);
  const allCodes = codes.map((c) => c.code).join('\n');
  return (
    <div className="grid-2 grid-top">
      <Card title={t('generate.title')} description={t('generate.description')}>
        <form className="form" onSubmit={onSubmit} noValidate aria-label={t('generate.formLabel')}>
          <div className="grid-2-tight">
            <NumberField form={form} name="creditsGB" label={t('generate.credits')} min={CODE_MIN_CREDITS_GB} step={0.1} hint={t('generate.creditsHint')} />
            <NumberField
              form={form}
              name="quantity"
              label={t('generate.quantity')}
              whole
              min={1}
              max={CODE_MAX_QUANTITY}
              step={1}
              hint={t('generate.quantityHint', { max: CODE_MAX_QUANTITY })}
            />
          </div>
          <FormField
            form={form}
            name="expiresAt"
            // datetime-local is the admin's local time; empty means no expiry (sent as null).
            options={{ setValueAs: (s: string | Date | null) => (typeof s === 'string' ? (s ? new Date(s) : null) : s) }}
            label={t('generate.expiresAt')}
            type="datetime-local"
            hint={t('generate.expiresHint')}
          />
          {error && <Alert kind="error">{error}</Alert>}
          <Button type="submit" block loading={create.isPending}>
            {t('generate.submit')}
          </Button>
        </form>
      </Card>
      <Card
        title={t('generate.generatedTitle')}
        description={codes.length ? t('generate.ready', { count: codes.length }) : t('generate.appearHere')}
        actions={codes.length > 0 && <CopyButton text={allCodes} label={t('generate.copyAll')} ariaLabel={t('generate.copyAllLabel')} />}
      >
        {codes.length === 0 ? (
          <div className="empty-state">{t('generate.none')}</div>
        ) : (
          <ul className="code-list" data-testid="code-list">
            {codes.map((c) => (
              <li key={c.code}>
                <div>
                  <span className="mono code-value">{c.code}</span>
                  <span className="muted small">
                    {fmt.gb(c.creditsBytes)}
                    {c.expiresAt ? t('generate.expires', { when: when(c.expiresAt) }) : t('generate.noExpiry')}
                  </span>
                </div>
                <CopyButton text={c.code} variant="ghost" ariaLabel={t('generate.copyCode', { code: c.code })} />
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
