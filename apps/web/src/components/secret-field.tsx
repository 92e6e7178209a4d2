/** A credential shown masked, with Reveal (Hide) and Copy: shoulder-surfing and screen shares see dots. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, CopyButton } from './ui';

/** Reveal / Hide, named for what it shows ("Reveal API key"). */
function RevealButton({ variant, shown, what, onToggle }: { variant: 'secondary' | 'link'; shown: boolean; what: string; onToggle: () => void }) {
  const { t } = useTranslation();
  return (
    <Button variant={variant} aria-pressed={shown} aria-label={t(shown ? 'secret.hideWhat' : 'secret.revealWhat', { what })} onClick={onToggle}>
      {t(shown ? 'secret.hide' : 'secret.reveal')}
    </Button>
  );
}

export function SecretField({ id, label, value }: { id: string; label: string; value: string }) {
  const { t } = useTranslation();
  const [shown, setShown] = useState(false);
  // "API key" stays as it is, "Proxy password" reads "proxy password" inside a sentence.
  const inSentence = /^[A-Z]{2}/.test(label) ? label : label.charAt(0).toLowerCase() + label.slice(1);
  return (
    <div className="key-row">
      <label className="sr-only" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        className="key-input mono"
        type={shown ? 'text' : 'password'}
        readOnly
        autoComplete="off"
        value={value}
        data-testid={id}
        onFocus={(e) => e.currentTarget.select()}
      />
      <RevealButton variant="secondary" shown={shown} what={inSentence} onToggle={() => setShown(!shown)} />
      <CopyButton text={value} variant="primary" ariaLabel={t('secret.copyWhat', { what: inSentence })} />
    </div>
  );
}

/** The same inside a line of text: dots until Reveal. */
export function SecretText({ value, label }: { value: string; label: string }) {
  const [shown, setShown] = useState(false);
  return (
    <>
      <span className="mono" data-secret={shown ? 'shown' : 'masked'}>
        {shown ? value : '•'.repeat(12)}
      </span>{' '}
      <RevealButton variant="link" shown={shown} what={label} onToggle={() => setShown(!shown)} />
    </>
  );
}
