export type FieldErrors<K extends string = string> = Partial<Record<K, string>>;

/** The part of a zod schema the forms use (the schemas come from core; the web app does not import zod itself). */
interface Schema<T> {
  safeParse(
    values: unknown,
  ): { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } };
}

/** Runs a core schema (the server's own) and keeps the first message per field, word for word. */
export function validate<T>(schema: Schema<T>, values: unknown): { ok: true; data: T } | { ok: false; errors: FieldErrors } {
  const r = schema.safeParse(values);
  if (r.success) return { ok: true, data: r.data };
  const errors: FieldErrors = {};
  for (const issue of r.error.issues) {
    const key = String(issue.path[0] ?? 'form');
    errors[key] ??= issue.message;
  }
  return { ok: false, errors };
}
