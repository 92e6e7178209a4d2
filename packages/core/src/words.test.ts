import { describe, expect, it } from 'vitest';
import { humanizeIdentifier } from './words';

describe('humanizeIdentifier', () => {
  it('turns code names into words', () => {
    expect(humanizeIdentifier('expiresAt')).toBe('Expires at');
    expect(humanizeIdentifier('deltaGB')).toBe('Delta GB');
    expect(humanizeIdentifier('pricePerGbCents')).toBe('Price per gb cents');
    expect(humanizeIdentifier('admin.createCodes')).toBe('Create codes');
    expect(humanizeIdentifier('payment.partially_paid')).toBe('Partially paid');
    expect(humanizeIdentifier('IPAddress')).toBe('IP address');
  });
});
