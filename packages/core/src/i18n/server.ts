/** The server's words in a person's language (mails, the bot): every catalogue loaded at once, synchronously. */
import i18next, { type TFunction } from 'i18next';
import { CATALOGUES } from './catalogues';
import { DEFAULT_LOCALE, isLocale, type Locale } from './locales';
import { NAMESPACES } from './namespaces';

export { pickLocale } from './pick-locale';

const instance = i18next.createInstance();
void instance.init({
  resources: CATALOGUES,
  lng: DEFAULT_LOCALE,
  fallbackLng: DEFAULT_LOCALE,
  ns: [...NAMESPACES],
  defaultNS: 'common',
  supportedLngs: [...Object.keys(CATALOGUES)],
  load: 'currentOnly',
  // Mails escape their HTML part themselves (html.ts); text parts and Telegram need the raw words.
  interpolation: { escapeValue: false },
  initAsync: false,
});

/** A language's t; anything not one of ours (null for a user who never chose) is English. */
export function translatorFor(locale: string | null | undefined): TFunction {
  const lng: Locale = isLocale(locale) ? locale : DEFAULT_LOCALE;
  return instance.getFixedT(lng);
}

/** A language's t for keys known only at run time (built from a code or a group): typed keys cannot name them. */
export const lookUpFor = (locale: string | null | undefined) => translatorFor(locale) as unknown as (key: string, options: Record<string, string>) => string;
