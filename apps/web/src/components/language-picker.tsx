import { useTranslation } from 'react-i18next';
import { LOCALES, LOCALE_NAMES, isLocale, type Locale } from '@proxyhub/core/i18n';
import { chooseLocale } from '../i18n';

/**
 * The language menu (site header, sidebar, Settings): each language in its own name. `onChosen`
 * keeps a signed-in user's choice on their account, for the mails and the bot.
 */
export function LanguagePicker({ onChosen, className }: { onChosen?: (locale: Locale) => void; className?: string }) {
  const { t, i18n } = useTranslation();
  return (
    <label className={`language-picker ${className ?? ''}`}>
      <span className="sr-only">{t('language')}</span>
      <select
        aria-label={t('language')}
        value={i18n.language}
        onChange={(e) => {
          const locale = e.target.value;
          if (!isLocale(locale)) return;
          void chooseLocale(locale);
          onChosen?.(locale);
        }}
      >
        {LOCALES.map((l) => (
          <option key={l} value={l} lang={l}>
            {LOCALE_NAMES[l]}
          </option>
        ))}
      </select>
    </label>
  );
}
