import { useEffect, useId, useRef, useState, type ButtonHTMLAttributes, type ComponentPropsWithRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { COPIED_MS } from '@proxyhub/core';
import { copyText } from '../lib/clipboard';
import { SupportText } from './support-text';

export function Spinner({ label }: { label?: string }) {
  return <span className="spinner" role={label ? 'status' : undefined} aria-label={label} aria-hidden={label ? undefined : true} />;
}

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  loading?: boolean;
  variant?: 'primary' | 'secondary' | 'ghost' | 'danger' | 'link';
  block?: boolean;
};

/** A button's classes: `btn`, its variant, `btn-block` when it fills the width, and any more. */
function buttonClass(variant: NonNullable<ButtonProps['variant']>, block: boolean | undefined, className: string | undefined): string {
  return ['btn', `btn-${variant}`, block ? 'btn-block' : '', className ?? ''].filter(Boolean).join(' ');
}

export function Button({ loading, variant = 'primary', block, className, children, disabled, type = 'button', ...rest }: ButtonProps) {
  const cls = buttonClass(variant, block, className);
  return (
    <button type={type} className={cls} disabled={disabled || loading} aria-busy={loading || undefined} {...rest}>
      {loading && <Spinner />}
      <span>{children}</span>
    </button>
  );
}

/** A link within the app that looks like a Button. */
export function LinkButton({
  to,
  variant = 'primary',
  block,
  className,
  children,
}: Pick<ButtonProps, 'variant' | 'block' | 'className'> & { to: string; children: ReactNode }) {
  return (
    <Link to={to} className={buttonClass(variant, block, className)}>
      {children}
    </Link>
  );
}

interface FieldShellProps {
  label: string;
  error?: string | undefined;
  hint?: ReactNode;
  children: (ids: { id: string; describedBy: string | undefined }) => ReactNode;
  className?: string;
}

function FieldShell({ label, error, hint, children, className }: FieldShellProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : '';
  const errorId = error ? `${id}-error` : '';
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' field-invalid' : ''}${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, describedBy })}
      {hint && (
        <p className="field-hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

type FieldProps = ComponentPropsWithRef<'input'> & { label: string; error?: string | undefined; hint?: ReactNode; fieldClassName?: string };

export function Field({ label, error, hint, fieldClassName, ...input }: FieldProps) {
  return (
    <FieldShell label={label} error={error} hint={hint} className={fieldClassName}>
      {({ id, describedBy }) => <input id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />}
    </FieldShell>
  );
}

type SelectFieldProps = ComponentPropsWithRef<'select'> & { label: string; error?: string | undefined; hint?: ReactNode; fieldClassName?: string };

export function SelectField({ label, error, hint, fieldClassName, children, ...select }: SelectFieldProps) {
  return (
    <FieldShell label={label} error={error} hint={hint} className={fieldClassName}>
      {({ id, describedBy }) => (
        <select id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...select}>
          {children}
        </select>
      )}
    </FieldShell>
  );
}

type TextAreaFieldProps = ComponentPropsWithRef<'textarea'> & { label: string; error?: string | undefined; hint?: ReactNode; fieldClassName?: string };

export function TextAreaField({ label, error, hint, fieldClassName, ...textarea }: TextAreaFieldProps) {
  return (
    <FieldShell label={label} error={error} hint={hint} className={fieldClassName}>
      {({ id, describedBy }) => <textarea id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...textarea} />}
    </FieldShell>
  );
}

/** A message in words: a server's "contact support" names the seller's support address. */
export function Alert({ kind, children, onDismiss }: { kind: 'error' | 'success' | 'info'; children: ReactNode; onDismiss?: () => void }) {
  const { t } = useTranslation();
  return (
    <div className={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      <span className="alert-icon" aria-hidden="true">
        {kind === 'error' ? '!' : kind === 'success' ? '✓' : 'i'}
      </span>
      <div className="alert-body">{typeof children === 'string' ? <SupportText text={children} /> : children}</div>
      {onDismiss && (
        <button type="button" className="alert-close" onClick={onDismiss} aria-label={t('dismiss')}>
          ×
        </button>
      )}
    </div>
  );
}

export type Outcome = { kind: 'success' | 'error'; text: string };

/** The last action's outcome: `alert` shows it (dismissible) where it is placed. */
export function useOutcome() {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const alert = outcome && (
    <Alert kind={outcome.kind} onDismiss={() => setOutcome(null)}>
      {outcome.text}
    </Alert>
  );
  return { setOutcome, alert };
}

/** Copy with a "Copied!" state for the spec's 2 seconds. */
export function CopyButton({
  text,
  label,
  copiedLabel,
  variant = 'secondary',
  className,
  ariaLabel,
  disabled,
}: {
  text: string | (() => string);
  label?: string;
  copiedLabel?: string;
  variant?: ButtonProps['variant'];
  className?: string;
  ariaLabel?: string;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return (
    <Button
      variant={variant}
      className={`copy-btn${className ? ` ${className}` : ''}${copied ? ' is-copied' : ''}`}
      aria-label={ariaLabel}
      disabled={disabled}
      onClick={async () => {
        if (await copyText(typeof text === 'function' ? text() : text)) {
          setCopied(true);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => setCopied(false), COPIED_MS);
        }
      }}
    >
      {copied ? (copiedLabel ?? t('copied')) : (label ?? t('copy'))}
      <span className="sr-only" aria-live="polite">
        {copied ? t('copiedToClipboard') : ''}
      </span>
    </Button>
  );
}

export function Brand({ to = '/' }: { to?: string }) {
  const { t } = useTranslation();
  return (
    <Link to={to} className="brand" aria-label={t('brandHome')}>
      <span className="brand-mark" aria-hidden="true">
        P
      </span>
      <span className="brand-name">ProxyHub</span>
    </Link>
  );
}

export function Card({
  title,
  description,
  children,
  actions,
  className,
}: {
  title?: ReactNode;
  description?: ReactNode;
  children?: ReactNode;
  actions?: ReactNode;
  className?: string;
}) {
  return (
    <section className={`card${className ? ` ${className}` : ''}`}>
      {(title || actions) && (
        <header className="card-header">
          <div>
            {title && <h2 className="card-title">{title}</h2>}
            {description && <p className="card-description">{description}</p>}
          </div>
          {actions && <div className="card-actions">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  );
}

export function PageHeader({ title, subtitle, actions }: { title: string; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle && <p className="page-subtitle">{subtitle}</p>}
      </div>
      {actions}
    </header>
  );
}

export function FullPageLoading({ label }: { label?: string }) {
  // The app's first fallback may show before the words have loaded: no suspending inside a fallback.
  const { t, ready } = useTranslation('common', { useSuspense: false });
  return (
    <div className="full-page-center" role="status" aria-live="polite">
      <Spinner />
      <span>{label ?? (ready ? t('loading') : '')}</span>
    </div>
  );
}

/** Centered single-card layout of the public account screens. */

const ICON_PATHS = {
  mail: 'M3 6h18v12H3zM3 6l9 7 9-7',
  check: 'M5 12.5l4.5 4.5L19 7.5',
  cross: 'M6 6l12 12M18 6 6 18',
  warning: 'M12 8v5M12 16.5v.5M10.3 3.9 2.4 18a2 2 0 0 0 1.7 3h15.8a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z',
} as const;

/** The large round icon above a status screen (check your email, verified, invalid link...). */
export function BigIcon({ kind, icon }: { kind: 'info' | 'success' | 'error'; icon: keyof typeof ICON_PATHS }) {
  return (
    <span className={`big-icon big-icon-${kind}`} aria-hidden="true">
      <svg viewBox="0 0 24 24">
        <path d={ICON_PATHS[icon]} />
      </svg>
    </span>
  );
}

/** A create-or-edit form's buttons: submit (its label for each case) and, while editing, Cancel. */
export function EditActions({
  editing,
  saving,
  labels,
  onCancel,
}: {
  editing: boolean;
  saving: boolean;
  labels: [create: string, save: string];
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  return (
    <div style={{ display: 'flex', gap: 8 }}>
      <Button type="submit" loading={saving}>
        {editing ? labels[1] : labels[0]}
      </Button>
      {editing && (
        <Button variant="secondary" onClick={onCancel}>
          {t('cancel')}
        </Button>
      )}
    </div>
  );
}
