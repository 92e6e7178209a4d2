import type { TRPCClientError } from '@trpc/client';
import { DEFAULT_LOCALE } from '@proxyhub/core/i18n';
import { currentLocale, i18n } from '../i18n';

/** By name, not instanceof: the signed-out pages show errors without having loaded the tRPC client. */
const isTRPCClientError = (err: unknown): err is TRPCClientError<never> => err instanceof Error && err.name === 'TRPCClientError';

/**
 * Error texts in the reader's language: the errors namespace (one chunk per language) is fetched as
 * soon as the app shows a language other than English, so it is there by the time a call fails.
 */
function loadErrorTexts(locale: string) {
  if (locale !== DEFAULT_LOCALE) void i18n.loadNamespaces('errors');
}
loadErrorTexts(currentLocale());
i18n.on('languageChanged', loadErrorTexts);

/** i18next's t for a key known only at run time (an answer's code): typed keys cannot name it. */
export const lookUp = (key: string, params: Record<string, string>): string => (i18n.t as unknown as (key: string, options: object) => string)(key, params);

/**
 * An English error text in the language on show: the translation of its code (the answer's code, or
 * the code of a schema's message, error-text.ts) with its varying parts. In English, or for a code
 * or params not known here, the English text shows as it came.
 */
export function translatedError(english: string, code: string | null | undefined, params?: Record<string, string> | null): string {
  if (!code || currentLocale() === DEFAULT_LOCALE || !i18n.hasResourceBundle(currentLocale(), 'errors')) return english;
  const key = `errors:${code}`;
  if (!i18n.exists(key)) return english;
  const text = lookUp(key, params ?? {});
  // Params a translation needs but the answer did not carry (a REST answer has the code only).
  return text.includes('{{') ? english : text;
}

interface AnswerData {
  code?: string;
  errorCode?: string;
  errorParams?: Record<string, string> | null;
}

/**
 * What a failed call shows: the server's own message when the server answered (the spec's
 * "error field"), in the language on show, else the call's fallback; when no answer came at all
 * (network down), the screen's fallback if it has one.
 */
export function errorMessage(err: unknown, callFallback: string, screenFallback?: string): string {
  if (isTRPCClientError(err)) {
    const answered = Boolean(err.data) || Boolean(err.shape);
    if (!answered) return screenFallback ?? callFallback;
    if (!err.message) return callFallback;
    const data = err.data as AnswerData | undefined;
    return translatedError(err.message, data?.errorCode, data?.errorParams);
  }
  return screenFallback ?? callFallback;
}

export function errorCode(err: unknown): string | undefined {
  if (isTRPCClientError(err)) {
    const data = err.data as AnswerData | undefined;
    return data?.code;
  }
  return undefined;
}

export const isUnauthorized = (err: unknown) => errorCode(err) === 'UNAUTHORIZED';
