import { describe, expect, it } from 'vitest';
import { costAboveSale, DEFAULT_PRICING, minOrderMessage, smallestOrder, smallestOrderText } from './pricing';
import { usdToCents } from './units';

describe('the smallest order', () => {
  it('states what is charged for it: 12 GB for $10.80 at the defaults, not the $10 minimum', () => {
    expect(smallestOrder(DEFAULT_PRICING)).toEqual({ gb: 12, totalCents: 1080 });
    expect(smallestOrderText(DEFAULT_PRICING)).toBe('12 GB for $10.80');
    // The spec's refusal below the minimum stays word for word.
    expect(minOrderMessage(DEFAULT_PRICING)).toBe('Minimum order is 12GB ($10)');
  });
  it('follows the price list and a customer’s own rate', () => {
    expect(smallestOrderText({ pricePerGbCents: 95, minOrderCents: 1500, tiers: [] })).toBe('16 GB for $15.20');
    expect(smallestOrderText({ pricePerGbCents: 100, minOrderCents: 1000, tiers: [] })).toBe('10 GB for $10.00');
    // An own rate lower than the list: the minimum total applies.
    expect(smallestOrderText(DEFAULT_PRICING, 50)).toBe('12 GB for $10.00');
  });
});

describe('a pool that costs more than a GB is sold for', () => {
  it('is named with the price it is above, the lowest one', () => {
    expect(costAboveSale('Oxylabs', 350, DEFAULT_PRICING)).toBe(
      'Oxylabs costs $3.50 per GB, more than the $0.90 per GB it is sold for: every GB through it loses money',
    );
    expect(costAboveSale('Pool', 85, { pricePerGbCents: 90, minOrderCents: 1000, tiers: [{ minGb: 100, pricePerGbCents: 80 }] })).toBe(
      'Pool costs $0.85 per GB, more than the $0.80 per GB it is sold for from 100 GB: every GB through it loses money',
    );
    expect(costAboveSale('Pool', 90, DEFAULT_PRICING)).toBeNull();
    expect(costAboveSale('Pool', 0, DEFAULT_PRICING)).toBeNull();
  });
});

describe('admin prices typed in dollars', () => {
  it('become whole cents, a fraction of a cent or a non-number left for the schema to refuse', () => {
    expect(usdToCents('0.90')).toBe(90);
    expect(usdToCents('$3.50')).toBe(350);
    expect(usdToCents(' 12 ')).toBe(1200);
    expect(usdToCents('0.29')).toBe(29);
    expect(usdToCents('0.905')).toBeCloseTo(90.5);
    expect(usdToCents('')).toBeNaN();
    expect(usdToCents('ten')).toBeNaN();
  });
});
