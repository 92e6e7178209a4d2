/**
 * The languages the shop speaks. English is the default and the spec's own words; the others are
 * translations of it. Adding one: a catalogue folder under catalogues/ and one line here.
 */
export const LOCALES = ['en', 'ru', 'zh-CN', 'es', 'pt-BR'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

/** Each language by its own name, as a picker shows it. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: 'English',
  ru: 'Русский',
  'zh-CN': '简体中文',
  es: 'Español',
  'pt-BR': 'Português (Brasil)',
};

/** The cookie a visitor's choice is kept in (a preference, read by the page's script: not HttpOnly). */
export const LOCALE_COOKIE = 'locale';

export const isLocale = (value: unknown): value is Locale => typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
