import { useTranslation } from 'react-i18next';
import { i18n } from '../i18n';

/** How a line's session duration reads wherever one is chosen (the generator, entry port profiles), in the language on show. */
export function durationLabel(m: number): string {
  if (m === 0) return i18n.t('durations.rotating');
  if (m % 1440 === 0 && [1, 3, 7].includes(m / 1440)) return i18n.t('durations.days', { count: m / 1440 });
  return i18n.t('durations.minutes', { count: m });
}

/** durationLabel for a component: it re-renders when the language changes. */
export function useDurationLabel(): (minutes: number) => string {
  useTranslation('common');
  return durationLabel;
}
