/** The overview's warning while the seller's settings (the legal pages' fields) still hold the shipped placeholders. */
import { trpc } from '../../trpc';
import { Alert } from '../ui';

export function SellerWarning() {
  // Read afresh where shown: the Site tab may have just saved.
  const q = trpc.admin.seller.useQuery(undefined, { staleTime: 0, refetchOnMount: 'always' });
  if (!q.data?.placeholders.length) return null;
  return (
    <div data-testid="seller-warning">
      <Alert kind="error">{`The legal pages still hold placeholders: ${q.data.placeholders.join(', ')}. Set them in Site.`}</Alert>
    </div>
  );
}
