import { DEFAULT_LOCALE, describeNotice } from '@proxyhub/core/i18n';
import { withGbBeside } from '@proxyhub/core';
import { currentLocale } from '../i18n';
import { lookUp } from './errors';
import { fmt } from './format';

/** A success message the server answered, in the language on show (its own English as it came). */
export function translatedNotice(english: string): string {
  if (currentLocale() === DEFAULT_LOCALE) return english;
  const notice = describeNotice(english);
  if (!notice) return english;
  return lookUp(`notices.${notice.code}`, { ...notice.params, ns: 'common' });
}

/** A message that credited bytes ("... 5120 MB ..."), with the GB they make beside the MB, in the language on show. */
export function creditedNotice(english: string, bytes: bigint | number | string): string {
  if (currentLocale() === DEFAULT_LOCALE) return withGbBeside(english, BigInt(bytes));
  const text = translatedNotice(english);
  const gb = ` (${fmt.gb(bytes)})`;
  return text.endsWith('.') ? `${text.slice(0, -1)}${gb}.` : `${text}${gb}`;
}
