/** "Contact support" in words the app shows names the seller's support address, as a mail link. */
import { useTranslation } from 'react-i18next';
import { useSeller } from '../lib/public-calls';

const CONTACT_SUPPORT = 'contact support';

/** The support address as a mail link; nothing until the seller has loaded. */
export function SupportEmail({ before = '' }: { before?: string }) {
  const seller = useSeller();
  if (!seller) return null;
  return (
    <>
      {before}
      <a href={`mailto:${seller.supportEmail}`} data-testid="support-email">
        {seller.supportEmail}
      </a>
    </>
  );
}

/** The address follows the words in the language on show, or the English ones (a text the app has no translation for). */
export function SupportText({ text }: { text: string }) {
  const { t } = useTranslation();
  const lower = text.toLowerCase();
  const words = [t('support.contact'), CONTACT_SUPPORT].find((w) => lower.includes(w.toLowerCase()));
  if (!words) return <>{text}</>;
  const end = lower.indexOf(words.toLowerCase()) + words.length;
  return (
    <>
      {text.slice(0, end)}
      <SupportEmail before={words === CONTACT_SUPPORT ? ' at ' : t('support.at')} />
      {text.slice(end)}
    </>
  );
}
