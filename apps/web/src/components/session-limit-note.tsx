/**
 * Under the generator's Session Duration: when the pools serving the chosen country keep an IP for
 * less than the chosen duration (locations.sessionLimit), say so. The line is still sold for its
 * duration; the provider's session is asked for its longest and the exit changes after it.
 */
import { useTranslation } from 'react-i18next';
import { useWatch, type Control, type FieldValues, type Path } from 'react-hook-form';
import { trpc } from '../trpc';

export function SessionLimitNote<T extends FieldValues & { durationMinutes: number }, Out extends FieldValues>({
  control,
  country,
}: {
  control: Control<T, unknown, Out>;
  country: string;
}) {
  const { t } = useTranslation();
  // Watched here, not in the page: a new duration re-renders this line only.
  const minutes = Number(useWatch({ control, name: 'durationMinutes' as Path<T> }));
  const limit = trpc.locations.sessionLimit.useQuery({ country }, { enabled: Boolean(country), staleTime: 60_000 });
  const max = limit.data?.maxSessionMinutes ?? null;
  if (max === null || !(minutes > max)) return null;
  return (
    <p className="field-hint" role="note" data-testid="session-limit-note">
      {t('sessionLimit', { count: max, country })}
    </p>
  );
}
