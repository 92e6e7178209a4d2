import { z } from 'zod';

/** A string field whose missing/empty value gets the spec's "required" message, trimmed first. */
export function requiredText(requiredMessage: string, max: number, tooLongMessage?: string) {
  return z
    .string({ error: (iss) => (iss.input === undefined || iss.input === null ? requiredMessage : `${requiredMessage.replace(/ is required$/, '')} must be text`) })
    .trim()
    .min(1, requiredMessage)
    .max(max, tooLongMessage ?? `Must be at most ${max} characters`);
}
