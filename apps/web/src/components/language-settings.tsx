import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { Locale } from '@proxyhub/core/i18n';
import { chooseLocale, currentLocale } from '../i18n';
import { errorMessage } from '../lib/errors';
import { useSession, useSessionActions } from '../session';
import { trpc } from '../trpc';
import { LanguagePicker } from './language-picker';
import { Alert, Card } from './ui';

/**
 * The signed-in user's language: shown as soon as the session loads (once: a later pick in this
 * browser is the user's own), and each pick kept on the account (PATCH /api/account), so mails and
 * the bot follow it.
 */
export function useAccountLocale() {
  const session = useSession();
  const { setUser } = useSessionActions();
  const update = trpc.auth.updateAccount.useMutation();
  const applied = useRef(false);
  const saved = session.data?.locale;
  useEffect(() => {
    if (!saved || applied.current) return;
    applied.current = true;
    if (saved !== currentLocale()) void chooseLocale(saved);
  }, [saved]);
  const save = async (locale: Locale) => {
    const r = await update.mutateAsync({ locale });
    setUser(r.user);
  };
  return { save, error: update.error, pending: update.isPending };
}

/** Settings' Language section: the same menu as the sidebar's, saved on the account. */
export function LanguageSettings() {
  const { t } = useTranslation('settings');
  const { save, error } = useAccountLocale();
  return (
    <Card title={t('language.title')} description={t('language.description')}>
      <LanguagePicker className="settings-language" onChosen={(l) => void save(l).catch(() => undefined)} />
      {error && <Alert kind="error">{errorMessage(error, t('language.saveFailed'))}</Alert>}
    </Card>
  );
}
