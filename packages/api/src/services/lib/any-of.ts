/**
 * Set-based statements for batched gateway calls (a thousand logins or leases at once). A list goes
 * to the database as one array parameter: an IN list has a parameter per value, and parsing and
 * planning those costs more than the rest of the query past a few hundred values (PGlite most).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

/**
 * `column in (select unnest($1))` for the values (text or uuid columns). Not `= any($1)`: for that
 * PostgreSQL may pick proxy_user_id's trigram index (built for admin search), 1,000 lookups of
 * which took 2.6 s where the unique index takes 1 ms.
 */
export function anyOf(column: PgColumn, values: Iterable<string>): SQL {
  return sql`${column} in (select unnest(${sql.param([...new Set(values)])}::${sql.raw(column.getSQLType())}[]))`;
}

/** One array parameter of a column's type, for `unnest(...)`: bigints travel as their decimal text. */
export function arrayOf(column: PgColumn, values: ReadonlyArray<string | bigint>): SQL {
  return sql`${sql.param(values.map(String))}::${sql.raw(column.getSQLType())}[]`;
}
