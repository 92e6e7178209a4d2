import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICING, minOrderMessage, smallestOrder, smallestOrderText } from './pricing';

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
