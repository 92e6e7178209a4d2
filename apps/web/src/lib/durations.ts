import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { ROTATING_DURATION_MINUTES } from '@proxyhub/core';

const DAY_MINUTES = 1440;

/** How a line's session duration reads wherever one is chosen (the generator, entry port profiles). */
const DURATION_LABELS: Record<number, string> = { 0: 'Rotating (new IP per connection)', 1440: '1 day', 4320: '3 days', 10080: '7 days' };
export const durationLabel = (m: number) => DURATION_LABELS[m] ?? `${m} minutes`;

/** The same words in the language on show: whole days as days, anything else in minutes. */
export function useDurationLabel(): (minutes: number) => string {
  const { t } = useTranslation('proxies');
  return useCallback(
    (m: number) =>
      m === ROTATING_DURATION_MINUTES
        ? t('duration.rotating')
        : m % DAY_MINUTES === 0
          ? t('duration.days', { count: m / DAY_MINUTES })
          : t('duration.minutes', { count: m }),
    [t],
  );
}
