/** "Contact support" in words the app shows names the seller's support address, as a mail link. */
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

export function SupportText({ text }: { text: string }) {
  const at = text.toLowerCase().indexOf(CONTACT_SUPPORT);
  if (at < 0) return <>{text}</>;
  const end = at + CONTACT_SUPPORT.length;
  return (
    <>
      {text.slice(0, end)}
      <SupportEmail before=" at " />
      {text.slice(end)}
    </>
  );
}
