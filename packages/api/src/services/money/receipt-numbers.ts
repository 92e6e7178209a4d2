/**
 * Receipt numbers: `<year>-<six digits or more>`, gapless per calendar year (UTC). The number is
 * taken inside the transaction that first credits the order: the year's counter row is upserted and
 * stays locked until that transaction ends, so concurrent credits queue on it (never max()+1, which
 * two transactions would read alike), and a credit that rolls back takes its number back with it.
 */
import { sql } from 'drizzle-orm';
import { receiptCounters, type DbOrTx } from '@proxyhub/db';

export const formatReceiptNumber = (year: number, n: number) => `${year}-${String(n).padStart(6, '0')}`;

export async function nextReceiptNumber(tx: DbOrTx, creditedAt: Date): Promise<string> {
  const year = creditedAt.getUTCFullYear();
  const [row] = await tx
    .insert(receiptCounters)
    .values({ year, lastNumber: 1 })
    .onConflictDoUpdate({ target: receiptCounters.year, set: { lastNumber: sql`${receiptCounters.lastNumber} + 1` } })
    .returning({ lastNumber: receiptCounters.lastNumber });
  return formatReceiptNumber(year, row!.lastNumber);
}
