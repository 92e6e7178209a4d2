/**
 * The admin's Site tab (owners): the Seller card. The company, postal address, support email and the
 * legal pages' dates named in the public footer, the legal pages, every "contact support", mails and
 * receipts. Settings still at their shipped placeholder show empty, with the placeholder as a hint.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { SELLER_PLACEHOLDERS, sellerInput, type Seller, type SellerInput } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { FormField, useActionForm } from '../../lib/form';
import { refreshSeller } from '../../lib/public-calls';
import { trpc } from '../../trpc';
import { Alert, Button, Card, Spinner, TextAreaField } from '../ui';

const resolver = zodResolver(sellerInput);

const valuesOf = (s: Seller): SellerInput => {
  const v = {} as SellerInput;
  for (const k of Object.keys(SELLER_PLACEHOLDERS) as Array<keyof Seller>) v[k] = s[k] === SELLER_PLACEHOLDERS[k] ? '' : s[k];
  return v;
};

function SellerForm({ seller }: { seller: Seller }) {
  const set = trpc.admin.setSeller.useMutation();
  const utils = trpc.useUtils();
  const { form, onSubmit, outcome } = useActionForm(
    resolver,
    valuesOf(seller),
    async (input) => {
      const r = await set.mutateAsync(input);
      refreshSeller();
      await utils.admin.seller.invalidate();
      return r.placeholders.length ? `Saved. Still placeholders: ${r.placeholders.join(', ')}.` : 'Saved: the site, mails and receipts name the seller.';
    },
    (err) => errorMessage(err, 'Saving the seller failed'),
  );
  const address = form.register('address', { onChange: () => form.getFieldState('address').error && form.clearErrors('address') });
  return (
    <form onSubmit={onSubmit} noValidate data-testid="seller-form" className="stack">
      {outcome}
      <FormField form={form} name="companyName" label="Company name" autoComplete="organization" placeholder={SELLER_PLACEHOLDERS.companyName} />
      <TextAreaField
        label="Postal address"
        rows={4}
        placeholder={'Street and number\nPostcode and town\nCountry'}
        error={form.formState.errors.address?.message}
        {...address}
      />
      <FormField form={form} name="supportEmail" label="Support email" type="email" autoComplete="email" placeholder={SELLER_PLACEHOLDERS.supportEmail} />
      <div className="grid-2">
        <FormField
          form={form}
          name="legalUpdatedOn"
          label="Legal pages last updated"
          type="date"
          hint="Shown as “Last updated” on the terms and privacy pages"
        />
        <FormField form={form} name="legalEffectiveOn" label="Legal pages effective from" type="date" hint="Shown as “Effective” on the same pages" />
      </div>
      <div>
        <Button type="submit" loading={set.isPending}>
          Save seller
        </Button>
      </div>
    </form>
  );
}

export function AdminSite() {
  // Another owner may have changed it: read afresh each time the tab opens.
  const q = trpc.admin.seller.useQuery(undefined, { refetchOnMount: 'always', staleTime: 0 });
  return (
    <Card title="Seller" description="Who sells: shown in the public footer, the legal pages (with their dates), every “contact support”, mails and receipts.">
      {q.isError && <Alert kind="error">{errorMessage(q.error, 'Failed to load the seller')}</Alert>}
      {q.data ? <SellerForm seller={q.data.seller} /> : !q.isError && <Spinner label="Loading the seller..." />}
    </Card>
  );
}
