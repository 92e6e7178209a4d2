import { describe, expect, it } from 'vitest';
import { BYTES_PER_GB } from './constants';
import { bytesToGbTruncated, bytesToMb, formatGb, gbToBytes, orderPriceCents, plural, tenthsOfGbToBytes } from './units';

describe('units', () => {
  it('converts tenths of a GB to bytes as DESIGN.md reads it', () => {
    expect(tenthsOfGbToBytes(1)).toBe(107374182n);
    expect(tenthsOfGbToBytes(15)).toBe(1610612736n);
    expect(gbToBytes(1.5)).toBe(1610612736n);
    expect(gbToBytes(0.3)).toBe(322122547n);
  });
  it('truncates GB to 2 decimals', () => {
    expect(bytesToGbTruncated(1073741823n)).toBe(0.99);
    expect(formatGb(1073741823n)).toBe('0.99');
    expect(formatGb(1610612736n)).toBe('1.50');
    expect(formatGb(0n)).toBe('0.00');
  });
  it('formats bytes as GB exactly, truncating at the hundredth (no float noise: the server sends bytes)', () => {
    for (const hundredths of [29n, 57n, 113n, 201n, 995n, 10n, 150n, 350n, 1234567n]) {
      const bytes = (hundredths * BYTES_PER_GB + 99n) / 100n;
      expect(formatGb(bytes)).toBe((Number(hundredths) / 100).toFixed(2));
      expect(formatGb(bytes - 1n)).toBe((Number(hundredths - 1n) / 100).toFixed(2));
    }
    expect(formatGb(311385130n)).toBe('0.29');
    expect(bytesToGbTruncated(311385130n)).toBe(0.29);
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
