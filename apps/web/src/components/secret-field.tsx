/** A credential shown masked, with Reveal (Hide) and Copy: shoulder-surfing and screen shares see dots. */
import { useState } from 'react';
import { Button, CopyButton } from './ui';

export function SecretField({ id, label, value }: { id: string; label: string; value: string }) {
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
      <Button variant="secondary" aria-pressed={shown} aria-label={`${shown ? 'Hide' : 'Reveal'} ${inSentence}`} onClick={() => setShown(!shown)}>
        {shown ? 'Hide' : 'Reveal'}
      </Button>
      <CopyButton text={value} variant="primary" ariaLabel={`Copy ${inSentence}`} />
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
      <Button variant="link" aria-pressed={shown} aria-label={`${shown ? 'Hide' : 'Reveal'} ${label}`} onClick={() => setShown(!shown)}>
        {shown ? 'Hide' : 'Reveal'}
      </Button>
    </>
  );
}
