/**
 * Error codes: the English errors catalogue is the table (code -> the exact English text, `{{name}}`
 * where it varies). `describeError` finds the code of a text the server or a shared schema produced,
 * with the varying parts as params, so answers can carry a stable code beside the English `error`
 * (docs/api-errors.md) and the web app can show the text in the reader's language.
 */
import en from './catalogues/en/errors';

export type ErrorCode = keyof typeof en;

export interface DescribedError {
  code: ErrorCode;
  params: Record<string, string>;
}

interface Template<C extends string> {
  code: C;
  re: RegExp;
  names: string[];
  literal: number;
}

const PLACEHOLDER = /\{\{(\w+)\}\}/g;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile<C extends string>(code: C, text: string): Template<C> {
  const names: string[] = [];
  let source = '';
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    source += escape(text.slice(last, m.index)) + '([\\s\\S]+?)';
    names.push(m[1]!);
    last = m.index + m[0].length;
  }
  source += escape(text.slice(last));
  return { code, re: new RegExp(`^${source}$`), names, literal: text.replace(PLACEHOLDER, '').length };
}

/**
 * Finds which of a table's English texts (code -> text, `{{name}}` where it varies) a text is, with
 * its varying parts. Compiled on first use; most literal text first, so a specific template
 * ("username: {{reason}}") wins over a general one ("{{field}}: {{problem}}") that also matches.
 */
export function templateMatcher<C extends string>(table: Readonly<Record<C, string>>): (text: string) => { code: C; params: Record<string, string> } | null {
  let compiled: Template<C>[] | null = null;
  return (text) => {
    compiled ??= (Object.entries(table) as [C, string][]).map(([code, t]) => compile(code, t)).sort((a, b) => b.literal - a.literal);
    for (const t of compiled) {
      const m = t.re.exec(text);
      if (m) return { code: t.code, params: Object.fromEntries(t.names.map((n, i) => [n, m[i + 1]!])) };
    }
    return null;
  };
}

/** The code of an English error text and its varying parts, or null when no template matches. */
export const describeError: (text: string) => DescribedError | null = templateMatcher(en);

/** Whether a code is one of the catalogue's (an answer's code may be a generic one, or from a newer server). */
export const isErrorCode = (code: unknown): code is ErrorCode => typeof code === 'string' && Object.hasOwn(en, code);

/**
 * The codes of texts no template matches, by HTTP status: the kind of error, not which one
 * (a zod message of its own, a framework's refusal).
 */
export const GENERIC_ERROR_CODES = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL',
  503: 'SERVICE_UNAVAILABLE',
} as const;

export function genericErrorCode(status: number): string {
  const known = (GENERIC_ERROR_CODES as Record<number, string>)[status];
  if (known) return known;
  return status >= 500 ? 'INTERNAL' : 'BAD_REQUEST';
}

/** The code an error answer with this English text and status carries. */
export const errorCodeOf = (text: string, status: number): string => describeError(text)?.code ?? genericErrorCode(status);
