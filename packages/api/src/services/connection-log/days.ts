/** The connection log's days: how long it is kept, and the UTC day a time falls on (its partition). */
import type { SQL } from 'drizzle-orm';
import type { DbOrTx } from '@proxyhub/db';

export const CONNECTION_LOG_DAYS = 30;
export const DAY_MS = 86_400_000;

export function dayOf(ms: number): string {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

/** Raw SQL's rows: PGlite answers `{ rows }`, postgres.js the rows themselves. */
export async function rowsOf<T>(db: DbOrTx, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query);
  return Array.isArray(result) ? (result as T[]) : (result as { rows: T[] }).rows;
}
