/** The overview's warning while the seller's settings (the legal pages' fields) still hold the shipped placeholders. */
import { useTranslation } from 'react-i18next';
import { trpc } from '../../trpc';
import { Alert } from '../ui';
import { sellerFieldNames } from './words';

export function SellerWarning() {
  const { t } = useTranslation('admin');
  // Read afresh where shown: the Site tab may have just saved.
  const q = trpc.admin.seller.useQuery(undefined, { staleTime: 0, refetchOnMount: 'always' });
  if (!q.data?.placeholders.length) return null;
  return (
    <div data-testid="seller-warning">
      <Alert kind="error">{t('site.warning', { list: sellerFieldNames(t, q.data.placeholders) })}</Alert>
    </div>
  );
}
