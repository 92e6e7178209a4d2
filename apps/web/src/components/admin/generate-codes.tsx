/** The Generate Codes tab: a batch of top-up codes, listed to copy one by one or all at once. */
import { zodResolver } from '@hookform/resolvers/zod';
import { CODE_MAX_QUANTITY, CODE_MIN_CREDITS_GB, createCodesInput, formatGb } from '@proxyhub/core';
import { errorMessage, isUnauthorized } from '../../lib/errors';
import { FormField, formError, NumberField, setFormError, submitWith, useSchemaForm } from '../../lib/form';
import { trpc } from '../../trpc';
import { Alert, Button, Card, CopyButton } from '../ui';
import { when } from './format';
import type { AdminShared } from './tab';

const resolver = zodResolver(createCodesInput);

export function GenerateCodes({ shared }: { shared: AdminShared }) {
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
        setFormError(form, errorMessage(err, 'Failed to generate codes'));
      }
    },
    'Failed to generate codes',
  );

  const error = formError(form);
  const allCodes = codes.map((c) => c.code).join('\n');
  return (
    <div className="grid-2 grid-top">
      <Card title="Generate Top-up Codes" description="Each code credits its amount once, to the first user who redeems it.">
        <form className="form" onSubmit={onSubmit} noValidate aria-label="Generate codes">
          <div className="grid-2-tight">
            <NumberField form={form} name="creditsGB" label="Credits (GB)" min={CODE_MIN_CREDITS_GB} step={0.1} hint="At least 0.1 GB, in steps of 0.1" />
            <NumberField form={form} name="quantity" label="Quantity" whole min={1} max={CODE_MAX_QUANTITY} step={1} hint={`1 to ${CODE_MAX_QUANTITY}`} />
          </div>
          <FormField
            form={form}
            name="expiresAt"
            // datetime-local is the admin's local time; empty means no expiry (sent as null).
            options={{ setValueAs: (s: string | Date | null) => (typeof s === 'string' ? (s ? new Date(s) : null) : s) }}
            label="Expires At (optional)"
            type="datetime-local"
            hint="Leave empty for codes that never expire."
          />
          {error && <Alert kind="error">{error}</Alert>}
          <Button type="submit" block loading={create.isPending}>
            Generate Codes
          </Button>
        </form>
      </Card>
      <Card
        title="Generated Codes"
        description={codes.length ? `${codes.length} ${codes.length === 1 ? 'code' : 'codes'} ready to hand out` : 'Codes you generate appear here.'}
        actions={codes.length > 0 && <CopyButton text={allCodes} label="Copy All" ariaLabel="Copy all codes" />}
      >
        {codes.length === 0 ? (
          <div className="empty-state">No codes generated yet.</div>
        ) : (
          <ul className="code-list" data-testid="code-list">
            {codes.map((c) => (
              <li key={c.code}>
                <div>
                  <span className="mono code-value">{c.code}</span>
                  <span className="muted small">
                    {formatGb(c.creditsBytes)} GB{c.expiresAt ? ` · expires ${when(c.expiresAt)}` : ' · no expiry'}
                  </span>
                </div>
                <CopyButton text={c.code} variant="ghost" ariaLabel={`Copy code ${c.code}`} />
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
