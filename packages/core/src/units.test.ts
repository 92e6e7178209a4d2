import { describe, expect, it } from 'vitest';
import { BYTES_PER_GB } from './constants';
import { bytesToGb, bytesToMb, formatGb, gbBreakdown, gbToBytes, orderPriceCents, plural, tenthsOfGbToBytes, withGbBeside } from './units';

describe('units', () => {
  it('converts tenths of a GB to bytes as docs/design.md reads it', () => {
    expect(tenthsOfGbToBytes(1)).toBe(107374182n);
    expect(tenthsOfGbToBytes(15)).toBe(1610612736n);
    expect(gbToBytes(1.5)).toBe(1610612736n);
    expect(gbToBytes(0.3)).toBe(322122547n);
  });
  it('rounds GB to 2 decimals, half away from zero, as a number and as text', () => {
    expect(bytesToGb(1073741823n)).toBe(1);
    expect(formatGb(1073741823n)).toBe('1.00');
    expect(formatGb(1610612736n)).toBe('1.50');
    expect(formatGb(0n)).toBe('0.00');
    expect(formatGb(-1610612736n)).toBe('-1.50');
    // 0.29 GB is 311385128.96 bytes: a byte either side still reads 0.29; 0.005 GB is the tie.
    expect(formatGb(311385130n)).toBe('0.29');
    expect(bytesToGb(311385128n)).toBe(0.29);
    const half = BYTES_PER_GB / 200n; // 0.005 GB exactly (5368709.12 bytes rounds down to ...09)
    expect(formatGb(half)).toBe('0.00');
    expect(formatGb(half + 1n)).toBe('0.01');
  });
  it('formats bytes as GB exactly at every hundredth (no float noise: the server sends bytes)', () => {
    for (const hundredths of [29n, 57n, 113n, 201n, 995n, 10n, 150n, 350n, 1234567n]) {
      const bytes = (hundredths * BYTES_PER_GB) / 100n;
      expect(formatGb(bytes)).toBe((Number(hundredths) / 100).toFixed(2));
      // The last byte below the tie (hundredths + 0.005 GB) and the first at or past it.
      const below = ((2n * hundredths + 1n) * BYTES_PER_GB - 1n) / 200n;
      expect(formatGb(below)).toBe((Number(hundredths) / 100).toFixed(2));
      expect(formatGb(below + 1n)).toBe((Number(hundredths + 1n) / 100).toFixed(2));
    }
  });
  it('Remaining + Total Usage add up to what was bought (the issue: 19.75 + 0.24 of 20 GB when truncated)', () => {
    const bought = 20n * BYTES_PER_GB;
    const used = 263_000_000n; // 0.2449 GB
    expect(gbBreakdown(bought - used, used)).toEqual({ remaining: '19.76', used: '0.24', bought: '20.00' });
    // The ties where rounding each figure alone would show 20.01 or 19.99.
    for (const u of [BYTES_PER_GB / 200n, (BYTES_PER_GB * 245n) / 10000n, (BYTES_PER_GB * 245n) / 10000n + 1n, 1n, bought - 1n]) {
      const b = gbBreakdown(bought - u, u);
      expect(b.bought).toBe('20.00');
      expect((Number(b.remaining) * 100 + Number(b.used) * 100) / 100).toBe(20);
    }
    // Every split of a few bought amounts, in steps that cross every hundredth: the sum is exact.
    for (const total of [20n * BYTES_PER_GB, tenthsOfGbToBytes(15), tenthsOfGbToBytes(1) * 7n, 12n * BYTES_PER_GB + 5n]) {
      for (let used = 0n; used <= total; used += 7_654_321n) {
        const b = gbBreakdown(total - used, used);
        const cents = (x: string) => BigInt(x.replace('.', ''));
        expect(cents(b.remaining) + cents(b.used)).toBe(cents(b.bought));
        expect(b.bought).toBe(formatGb(total));
        expect(b.remaining).toBe(formatGb(total - used));
        // The usage shown is the usage rounded, or at most a hundredth off it at a tie.
        const off = cents(b.used) - cents(formatGb(used));
        expect(off >= -1n && off <= 1n).toBe(true);
      }
    }
  });
  it('puts the GB figure beside an MB message', () => {
    expect(withGbBeside('Successfully redeemed 1536 MB', 1610612736n)).toBe('Successfully redeemed 1536 MB (1.50 GB)');
    expect(withGbBeside('Batch associated: 2 proxy accounts and 1024 MB added to your account.', BYTES_PER_GB)).toBe(
      'Batch associated: 2 proxy accounts and 1024 MB (1.00 GB) added to your account.',
    );
    expect(withGbBeside('Code redeemed', 5n)).toBe('Code redeemed');
  });
  it('reports MB', () => {
    expect(bytesToMb(1610612736n)).toBe(1536);
    expect(bytesToMb(107374182n)).toBe(102);
  });
  it('prices orders in cents with the $10 floor', () => {
    expect(orderPriceCents(12)).toBe(1080);
    expect(orderPriceCents(11)).toBe(1000);
    expect(orderPriceCents(100)).toBe(9000);
  });
});

describe('plural', () => {
  it('says 1 session and 0 or 2 sessions, with thousands separators', () => {
    expect(plural(1, 'session')).toBe('1 session');
    expect(plural(0, 'session')).toBe('0 sessions');
    expect(plural(2500, 'session')).toBe('2,500 sessions');
    expect(plural(2, 'proxy', 'proxies')).toBe('2 proxies');
  });
});
