import { match } from '@formatjs/intl-localematcher';
import { DEFAULT_LOCALE, LOCALES, isLocale, type Locale } from './locales';

// Server side only: the matcher carries the language-distance data, which the web app does not need
// (the server writes its pick into the page).
/**
 * The best of our languages for what a browser asks for, in its order ("pt" and "pt-PT" get
 * Brazilian Portuguese, "zh", "zh-Hans" and "zh-SG" Simplified Chinese), else English.
 */
export function pickLocale(requested: readonly string[]): Locale {
  const valid = requested.filter((tag) => {
    try {
      return Intl.getCanonicalLocales(tag).length === 1;
    } catch {
      return false;
    }
  });
  if (!valid.length) return DEFAULT_LOCALE;
  const best = match(valid, [...LOCALES], DEFAULT_LOCALE, { algorithm: 'best fit' });
  return isLocale(best) ? best : DEFAULT_LOCALE;
}
