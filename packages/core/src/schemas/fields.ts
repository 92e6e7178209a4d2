import { z } from 'zod';

/** "Email is required" -> "Email must be text"; a sentence-like message ("Invalid link...") stays as is. */
function wrongTypeMessage(requiredMessage: string): string {
  return requiredMessage.endsWith(' is required') ? `${requiredMessage.slice(0, -' is required'.length)} must be text` : requiredMessage;
}

/** A string field whose missing/empty value gets the spec's "required" message, trimmed first. */
export function requiredText(requiredMessage: string, max: number, tooLongMessage?: string) {
  return z
    .string({ error: (iss) => (iss.input === undefined || iss.input === null ? requiredMessage : wrongTypeMessage(requiredMessage)) })
    .trim()
    .min(1, requiredMessage)
    .max(max, tooLongMessage ?? `Must be at most ${max} characters`);
}
