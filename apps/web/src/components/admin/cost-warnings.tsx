/** Pools that cost more per GB than a GB is sold for (admin.costWarnings): shown on the overview and the Pricing tab. */
import { useTranslation } from 'react-i18next';
import { trpc } from '../../trpc';
import { Alert } from '../ui';
import { costWarningText } from './cost-warning';

export function CostWarnings() {
  const { t } = useTranslation('network');
  // Read afresh where shown: a price or a pool's cost may have just changed.
  const q = trpc.admin.costWarnings.useQuery(undefined, { staleTime: 0, refetchOnMount: 'always' });
  if (!q.data?.warnings.length) return null;
  return (
    <div data-testid="cost-warnings">
      {q.data.warnings.map((w) => (
        <Alert key={w} kind="error">
          {costWarningText(t, w)}
        </Alert>
      ))}
    </div>
  );
}
