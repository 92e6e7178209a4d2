/**
 * The forms' one way of holding values and messages: react-hook-form, validated by the procedure's
 * own core schema through its zod resolver. A form checks on submit only, and editing a field clears
 * its message (as the spec's forms always did); the message shown is the schema's first for the field,
 * word for word in English, translated by its code in the other languages (error-text.ts).
 */
import type { ComponentProps, FormEvent } from 'react';
import {
  useForm,
  type DefaultValues,
  type FieldError,
  type FieldValues,
  type Path,
  type RegisterOptions,
  type Resolver,
  type UseFormReturn,
} from 'react-hook-form';
import { Field, useOutcome } from '../components/ui';
import { useTranslation } from 'react-i18next';
import { translatedMessage } from './error-text';

export function useSchemaForm<TIn extends FieldValues, TOut>(resolver: Resolver<TIn, unknown, TOut>, defaultValues: DefaultValues<TIn>) {
  return useForm<TIn, unknown, TOut>({ resolver, defaultValues, mode: 'onSubmit', reValidateMode: 'onSubmit' });
}

/**
 * The schema's first message for each of `names` (an issue under no field is the form's), for a form
 * whose fields hold text shaped otherwise than the schema's input (a list typed as "US, DE") and so
 * parses the input itself: the messages land under the fields of the same names.
 */
export function issueMessages<N extends string>(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  names: readonly N[],
): Partial<Record<N | 'root', FieldError>> {
  const out: Partial<Record<N | 'root', FieldError>> = {};
  for (const issue of issues) {
    const name = names.find((n) => n === issue.path[0]) ?? 'root';
    out[name] ??= { type: 'validate', message: issue.message };
  }
  return out;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any form: the field reads and registers by name only
type AnyForm<T extends FieldValues> = UseFormReturn<T, any, any>;

/** A form's message that belongs to no field (the server's answer, or the load failing). */
export const formError = <T extends FieldValues>(form: AnyForm<T>) => translatedMessage(form.formState.errors.root?.message);
/** The form's first message, a field's or the form's own: for forms that show one message above or below themselves. */
export const firstError = <T extends FieldValues>(form: AnyForm<T>) => {
  const { root, ...fields } = form.formState.errors;
  return translatedMessage(Object.values(fields).find((e) => typeof e?.message === 'string')?.message ?? root?.message);
};
export const setFormError = <T extends FieldValues>(form: AnyForm<T>, message: string) => form.setError('root', { message });

/**
 * The form's submit handler: `onValid` gets the schema's output. A failure to load what validation
 * needs (the signed-out forms' lazy schemas) shows `unexpected` above the form.
 */
export function submitWith<T extends FieldValues, O>(form: UseFormReturn<T, unknown, O>, onValid: (data: O) => Promise<void> | void, unexpected: string) {
  return (e: FormEvent) => {
    form
      .handleSubmit(onValid)(e)
      .catch(() => setFormError(form, unexpected));
  };
}

type FormFieldProps<T extends FieldValues> = Omit<ComponentProps<typeof Field>, 'name' | 'error' | 'form' | 'value' | 'onChange'> & {
  form: AnyForm<T>;
  name: Path<T>;
  options?: RegisterOptions<T, Path<T>>;
  /** False where the form shows the message itself (above the form). */
  showError?: boolean;
  /** Rewrites what is typed as it is typed (a code in capitals, say). */
  transform?: (value: string) => string;
};

/** A labelled input bound to one field of the form, with its message. */
export function FormField<T extends FieldValues>({ form, name, options, showError = true, transform, ...field }: FormFieldProps<T>) {
  const { error } = form.getFieldState(name, form.formState);
  const input = form.register(name, {
    ...options,
    onChange: (e: unknown) => {
      // Only a shown message is cleared: clearing nothing would still re-render the whole form on every keystroke.
      if (form.getFieldState(name).error) form.clearErrors(name);
      return options?.onChange?.(e);
    },
  });
  return (
    <Field
      {...field}
      {...input}
      onChange={(e) => {
        if (transform) e.target.value = transform(e.target.value);
        return input.onChange(e);
      }}
      error={showError ? translatedMessage(error?.message) : undefined}
    />
  );
}

/** A blank number box is a missing value (the schema's "must be a number"), not 0; the defaults are numbers already. */
const asNumber = (s: string | number) => (typeof s === 'number' ? s : s.trim() === '' ? undefined : Number(s));

/** A number box bound to one field: what is typed reaches the schema as a number (blank: missing). */
export function NumberField<T extends FieldValues>({
  whole = false,
  ...props
}: Omit<FormFieldProps<T>, 'options' | 'type' | 'inputMode'> & { whole?: boolean }) {
  return <FormField {...props} options={{ setValueAs: asNumber }} type="number" inputMode={whole ? 'numeric' : 'decimal'} />;
}

/** A new password (with the rule as its hint) and its confirmation; the schema checks that they match. */
export function NewPasswordFields<T extends FieldValues>({ form, names, labels }: { form: AnyForm<T>; names: [Path<T>, Path<T>]; labels: [string, string] }) {
  const { t } = useTranslation();
  return (
    <>
      <FormField form={form} name={names[0]} label={labels[0]} type="password" autoComplete="new-password" hint={t('passwordHint')} />
      <FormField form={form} name={names[1]} label={labels[1]} type="password" autoComplete="new-password" />
    </>
  );
}

/**
 * A form that does one thing and says how it went: `action` gets the schema's output and returns the
 * success text; a failure shows `failed(err)`. The last outcome shows (dismissible) where `outcome` is
 * placed, and is cleared by the next submit (or by `clearOutcome`, when what it spoke of is edited).
 */
export function useActionForm<TIn extends FieldValues, TOut>(
  resolver: Resolver<TIn, unknown, TOut>,
  defaultValues: DefaultValues<TIn>,
  action: (data: TOut, form: UseFormReturn<TIn, unknown, TOut>) => Promise<string>,
  failed: (err: unknown) => string,
) {
  const { t } = useTranslation();
  const form = useSchemaForm(resolver, defaultValues);
  const { setOutcome, alert: outcome } = useOutcome();
  const send = submitWith(
    form,
    async (data) => {
      try {
        setOutcome({ kind: 'success', text: await action(data, form) });
      } catch (err) {
        setOutcome({ kind: 'error', text: failed(err) });
      }
    },
    t('invalidInput'),
  );
  const onSubmit = (e: FormEvent) => {
    setOutcome(null);
    send(e);
  };
  return { form, onSubmit, outcome, clearOutcome: () => setOutcome(null) };
}
