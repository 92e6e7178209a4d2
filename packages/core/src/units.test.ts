import { describe, expect, it } from 'vitest';
import { bytesToGbTruncated, bytesToMb, formatGb, formatGbNumber, gbToBytes, orderPriceCents, tenthsOfGbToBytes } from './units';

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
  it('formats GB figures the server sent without float noise, still truncating', () => {
    for (const gb of [0.29, 0.57, 1.13, 2.01, 9.95, 0.1, 1.5, 0, 3.5]) expect(formatGbNumber(gb)).toBe(gb.toFixed(2));
    expect(formatGbNumber(bytesToGbTruncated(311385130n))).toBe('0.29');
    expect(formatGbNumber(0.999)).toBe('0.99');
    expect(formatGbNumber(12345.67)).toBe('12345.67');
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
