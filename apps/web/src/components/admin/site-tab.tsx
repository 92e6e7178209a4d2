/**
 * The admin's Site tab (owners): the Seller card. The company, postal address, support email and the
 * legal pages' dates named in the public footer, the legal pages, every "contact support", mails and
 * receipts. Settings still at their shipped placeholder show empty, with the placeholder as a hint.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useTranslation } from 'react-i18next';
import { SELLER_PLACEHOLDERS, sellerInput, type Seller, type SellerInput } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { FormField, useActionForm } from '../../lib/form';
import { refreshSeller } from '../../lib/public-calls';
import { trpc } from '../../trpc';
import { Alert, Button, Card, Spinner, TextAreaField } from '../ui';
import { sellerFieldNames } from './words';

const resolver = zodResolver(sellerInput);

const valuesOf = (s: Seller): SellerInput => {
  const v = {} as SellerInput;
  for (const k of Object.keys(SELLER_PLACEHOLDERS) as Array<keyof Seller>) v[k] = s[k] === SELLER_PLACEHOLDERS[k] ? '' : s[k];
  return v;
};

function SellerForm({ seller }: { seller: Seller }) {
  const { t } = useTranslation('admin');
  const set = trpc.admin.setSeller.useMutation();
  const utils = trpc.useUtils();
  const { form, onSubmit, outcome } = useActionForm(
    resolver,
    valuesOf(seller),
    async (input) => {
      const r = await set.mutateAsync(input);
      refreshSeller();
      await utils.admin.seller.invalidate();
      return r.placeholders.length ? t('site.savedPlaceholders', { list: sellerFieldNames(t, r.placeholders) }) : t('site.saved');
    },
    (err) => errorMessage(err, t('site.saveFailed')),
  );
  const address = form.register('address', { onChange: () => form.getFieldState('address').error && form.clearErrors('address') });
  return (
    <form onSubmit={onSubmit} noValidate data-testid="seller-form" className="stack">
      {outcome}
      <FormField form={form} name="companyName" label={t('site.companyName')} autoComplete="organization" placeholder={t('site.companyPlaceholder')} />
      <TextAreaField
        label={t('site.address')}
        rows={4}
        placeholder={t('site.addressPlaceholder')}
        error={form.formState.errors.address?.message}
        {...address}
      />
      <FormField
        form={form}
        name="supportEmail"
        label={t('site.supportEmail')}
        type="email"
        autoComplete="email"
        placeholder={SELLER_PLACEHOLDERS.supportEmail}
      />
      <div className="grid-2">
        <FormField form={form} name="legalUpdatedOn" label={t('site.legalUpdatedOn')} type="date" hint={t('site.legalUpdatedHint')} />
        <FormField form={form} name="legalEffectiveOn" label={t('site.legalEffectiveOn')} type="date" hint={t('site.legalEffectiveHint')} />
      </div>
      <div>
        <Button type="submit" loading={set.isPending}>
          {t('site.save')}
        </Button>
      </div>
    </form>
  );
}

export function AdminSite() {
  const { t } = useTranslation('admin');
  // Another owner may have changed it: read afresh each time the tab opens.
  const q = trpc.admin.seller.useQuery(undefined, { refetchOnMount: 'always', staleTime: 0 });
  return (
    <Card title={t('site.title')} description={t('site.description')}>
      {q.isError && <Alert kind="error">{errorMessage(q.error, t('site.loadFailed'))}</Alert>}
      {q.data ? <SellerForm seller={q.data.seller} /> : !q.isError && <Spinner label={t('site.loading')} />}
    </Card>
  );
}
