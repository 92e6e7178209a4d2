/**
 * Messages the web app made itself from the shared schemas (zod's messages on a form's fields):
 * their code found from the English text, then shown in the language on show. Kept apart from
 * errors.ts because it holds the English table of codes, which only the forms need.
 */
import { describeError } from '@proxyhub/core/i18n';
import { translatedError } from './errors';

/** A schema's message in the language on show; a varying part that is itself a known message is translated too. */
export function translatedMessage(english: string | undefined): string | undefined {
  if (english === undefined) return undefined;
  const described = describeError(english);
  if (!described) return english;
  const params = Object.fromEntries(Object.entries(described.params).map(([k, v]) => [k, describeError(v) ? translatedMessage(v)! : v]));
  return translatedError(english, described.code, params);
}
