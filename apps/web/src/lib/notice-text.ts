import { DEFAULT_LOCALE, describeNotice } from '@proxyhub/core/i18n';
import { currentLocale, i18n } from '../i18n';

/** A success message the server answered, in the language on show (its own English as it came). */
export function translatedNotice(english: string): string {
  if (currentLocale() === DEFAULT_LOCALE) return english;
  const notice = describeNotice(english);
  if (!notice) return english;
  return (i18n.t as unknown as (key: string, values: Record<string, string>) => string)(`notices.${notice.code}`, { ...notice.params, ns: 'common' });
}
