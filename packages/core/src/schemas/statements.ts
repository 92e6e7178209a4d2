import { z } from 'zod';

/** The signature scheme of daily statements (GET /api/statements/key). */
export const STATEMENT_ALGORITHM = 'Ed25519';
/** The most days one list of statements covers. */
export const STATEMENTS_MAX_DAYS = 366;

const DATE_RE = /^\d{4}-\d\d-\d\d$/;

/** A UTC day, YYYY-MM-DD. */
export const statementDate = (field: string) =>
  z.string({ error: `${field} must be a date (YYYY-MM-DD)` }).refine(
    (v) => {
      // Date.parse is NaN for a month 13 (toISOString would throw); Feb 30 parses but rolls over.
      const t = DATE_RE.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN;
      return !Number.isNaN(t) && new Date(t).toISOString().startsWith(v);
    },
    { error: `${field} must be a date (YYYY-MM-DD)` },
  );

/** The signed-in user's statements over [from, to] (UTC days); default the last 30 days. */
export const statementsInput = z
  .object({
    from: statementDate('from').optional(),
    to: statementDate('to').optional(),
  })
  .optional();
export type StatementsInput = z.infer<typeof statementsInput>;

/** One day's statements (one per proxy account with traffic that day). */
export const statementInput = z.object({ date: statementDate('date') });
export type StatementInput = z.infer<typeof statementInput>;

/** One day's connections of one proxy account, the bytes a statement's connectionsDigest covers. */
export const statementConnectionsInput = z.object({
  date: statementDate('date'),
  /** The proxy account (its id or proxy user id); optional when only one account has traffic that day. */
  account: z.string().max(64, { error: 'account must be a proxy account' }).optional(),
});
export type StatementConnectionsInput = z.infer<typeof statementConnectionsInput>;

/** Per-country sums of a statement; bytes as decimal strings (they can pass 2^53). */
export interface StatementCountry {
  country: string;
  bytes: string;
  billedBytes: string;
  connections: number;
}

/**
 * A signed daily statement of one proxy account. `signature` is Ed25519 (base64) over the UTF-8
 * bytes of the canonical JSON (RFC 8785) of every other field; `previous` is the SHA-256 (hex) of
 * the canonical JSON of the account's previous final statement, signature included (null for the first).
 */
export interface Statement {
  account: { id: string; proxyUserId: string };
  date: string;
  totals: { bytes: string; billedBytes: string; connections: number };
  byCountry: StatementCountry[];
  connectionsDigest: string;
  previous: string | null;
  final: boolean;
  signature: string;
}
