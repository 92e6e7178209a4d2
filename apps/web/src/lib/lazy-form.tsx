/**
 * The signed-out forms on react-hook-form without it in the page's first download: the page draws
 * plain inputs, and the form's control (react-hook-form's `createFormControl`, with the core schemas'
 * resolvers, from form-schemas.ts) loads on the first focus or submit and takes the inputs over as they
 * are, typed values included. Checked on submit, a field's message cleared as it is edited, as in
 * lib/form.tsx.
 */
import { useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import type { FieldValues, Path, Resolver } from 'react-hook-form';
import { loadSchemas, preloadForm } from './form-deps';
import type { createFormControl, resolvers } from './form-schemas';

type Control<T extends FieldValues, O> = ReturnType<typeof createFormControl<T, unknown, O>>;
type Shown = { errors: Partial<Record<string, string>>; root?: string | undefined };

export function useLazyForm<T extends FieldValues, O>(pick: (r: typeof resolvers) => Resolver<T, unknown, O>) {
  const control = useRef<Control<T, O> | null>(null);
  const inputs = useRef(new Map<Path<T>, HTMLInputElement>());
  const [shown, setShown] = useState<Shown>({ errors: {} });
  const [submitting, setSubmitting] = useState(false);

  async function ready(): Promise<Control<T, O>> {
    const m = await loadSchemas();
    if (control.current) return control.current;
    const c = m.createFormControl<T, unknown, O>({ resolver: pick(m.resolvers), mode: 'onSubmit', reValidateMode: 'onSubmit' });
    c.subscribe({
      formState: { errors: true },
      callback: (s) => {
        const errors: Shown['errors'] = {};
        for (const [name, e] of Object.entries(s.errors ?? {}))
          if (name !== 'root' && typeof e?.message === 'string') errors[name] = m.translatedMessage(e.message);
        setShown({ errors, root: m.translatedMessage(s.errors?.root?.message) });
      },
    });
    // No default values: registering reads each input's value as it stands.
    for (const [name, el] of inputs.current) c.register(name).ref(el);
    control.current = c;
    return c;
  }

  return {
    /** Starts loading the control and the tRPC client (the form's onFocus). */
    preload: () => {
      preloadForm();
      ready().catch(() => undefined);
    },
    /** The input's props: its name, the ref the control takes it over by, its change handler and message. */
    field: (name: Path<T>) => ({
      name,
      ref: (el: HTMLInputElement | null) => {
        if (!el) return;
        inputs.current.set(name, el);
        control.current?.register(name).ref(el);
      },
      onChange: (e: ChangeEvent<HTMLInputElement>) => {
        const c = control.current;
        if (!c) return;
        void c.register(name).onChange(e);
        c.clearErrors(name);
      },
      error: shown.errors[name],
    }),
    /** The form's submit: `onValid` gets the schema's output; a failed load shows `unexpected` above the form. */
    submit: (onValid: (data: O) => Promise<void>, unexpected: string) => (e: FormEvent) => {
      e.preventDefault();
      preloadForm();
      setSubmitting(true);
      ready()
        .then((c) => c.handleSubmit(onValid)())
        .catch(() => setShown((s) => ({ ...s, root: unexpected })))
        .finally(() => setSubmitting(false));
    },
    setError: (message: string) => control.current?.setError('root', { message }),
    formError: shown.root,
    submitting,
  };
}
