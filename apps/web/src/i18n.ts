/**
 * The web app's language: i18next over core's catalogues, one namespace chunk at a time. The first
 * visit follows the browser's languages (Accept-Language: the server writes its pick into
 * <html data-locale> as it serves the page), a choice is kept in the `locale` cookie, and a signed-in
 * user's own `locale` wins once their session is known (locale-sync.ts).
 */
import i18next from 'i18next';
import resourcesToBackend from 'i18next-resources-to-backend';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LOCALE, LOCALE_COOKIE, LOCALES, isLocale, loadCatalogue, type Locale, type Namespace } from '@proxyhub/core/i18n';

const YEAR_SECONDS = 365 * 24 * 60 * 60;

function cookieLocale(): Locale | null {
  const value = document.cookie
    .split('; ')
    .find((c) => c.startsWith(`${LOCALE_COOKIE}=`))
    ?.slice(LOCALE_COOKIE.length + 1);
  return isLocale(value) ? value : null;
}

/** The cookie, else what the server picked from Accept-Language (`<html data-locale>`), else English. */
function firstLocale(): Locale {
  const fromServer = document.documentElement.dataset.locale;
  return cookieLocale() ?? (isLocale(fromServer) ? fromServer : DEFAULT_LOCALE);
}

export const i18n = i18next.createInstance();
void i18n
  .use(initReactI18next)
  .use(resourcesToBackend((lng: string, ns: string) => loadCatalogue(lng as Locale, ns as Namespace)))
  .init({
    lng: firstLocale(),
    // Every language holds every key (the completeness test): nothing falls back.
    fallbackLng: false,
    supportedLngs: [...LOCALES],
    load: 'currentOnly',
    ns: ['common'],
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    react: { useSuspense: true },
  });

/** The language on show (one of ours). */
export const currentLocale = (): Locale => (isLocale(i18n.language) ? i18n.language : DEFAULT_LOCALE);

function applyToDocument(locale: Locale) {
  document.documentElement.lang = locale;
}
applyToDocument(currentLocale());
i18n.on('languageChanged', (lng) => applyToDocument(isLocale(lng) ? lng : DEFAULT_LOCALE));

/** Shows the app in `locale` and keeps the choice for this browser. */
export async function chooseLocale(locale: Locale): Promise<void> {
  document.cookie = `${LOCALE_COOKIE}=${locale}; Path=/; Max-Age=${YEAR_SECONDS}; SameSite=Lax`;
  if (locale !== i18n.language) await i18n.changeLanguage(locale);
}
