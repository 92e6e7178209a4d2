import { describe, expect, it } from 'vitest';
import { receiptCounters } from '@proxyhub/db';
import { fileDatabase } from '../../../test/fixtures';
import { formatReceiptNumber, nextReceiptNumber } from './receipt-numbers';

const database = fileDatabase();
const take = (at: Date) => database.db.transaction((tx) => nextReceiptNumber(tx, at));

describe('receipt numbers', () => {
  it('start again at 1 each UTC year: the last second of a year and the first of the next', async () => {
    expect(await take(new Date('2031-12-31T23:59:59.999Z'))).toBe('2031-000001');
    expect(await take(new Date('2031-12-31T23:00:00-05:00'))).toBe('2032-000001');
    expect(await take(new Date('2032-01-01T00:00:00Z'))).toBe('2032-000002');
    expect(await take(new Date('2031-06-01T12:00:00Z'))).toBe('2031-000002');
  });

  it('are gapless and unique under 40 concurrent credits, and a rolled-back credit gives its number back', async () => {
    const at = new Date('2040-03-01T00:00:00Z');
    const numbers = await Promise.all(Array.from({ length: 40 }, () => take(at)));
    expect([...numbers].sort()).toEqual(Array.from({ length: 40 }, (_, i) => formatReceiptNumber(2040, i + 1)));

    await expect(
      database.db.transaction(async (tx) => {
        expect(await nextReceiptNumber(tx, at)).toBe('2040-000041');
        throw new Error('credit failed');
      }),
    ).rejects.toThrow('credit failed');
    expect(await take(at)).toBe('2040-000041');
    expect((await database.db.select().from(receiptCounters)).find((r) => r.year === 2040)).toEqual({ year: 2040, lastNumber: 41 });
  });

  it('keep six digits and grow past them rather than wrap', () => {
    expect(formatReceiptNumber(2026, 1)).toBe('2026-000001');
    expect(formatReceiptNumber(2026, 1234567)).toBe('2026-1234567');
  });
});
