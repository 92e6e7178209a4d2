import { sql } from 'drizzle-orm';
import { bigint, timestamp } from 'drizzle-orm/pg-core';

/** Bytes and other counts that can pass 2^53: bigint in SQL and in TS. default(0n) breaks drizzle-kit. */
export const bytes = (name: string) =>
  bigint(name, { mode: 'bigint' })
    .notNull()
    .default(sql`0`);
export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
