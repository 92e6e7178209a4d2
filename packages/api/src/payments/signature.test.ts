import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_SIGNED_DEPTH, signBody, sortKeysDeep, verifySignature } from './signature';

describe('NOWPayments IPN signatures', () => {
  const body = { payment_status: 'finished', order_id: 'o-1', price_amount: 10.8, fee: { serviceFee: 0, currency: 'btc' }, list: [{ b: 1, a: 2 }] };

  it('signs the JSON with keys sorted recursively (HMAC-SHA512, hex)', () => {
    const sorted = '{"fee":{"currency":"btc","serviceFee":0},"list":[{"a":2,"b":1}],"order_id":"o-1","payment_status":"finished","price_amount":10.8}';
    expect(JSON.stringify(sortKeysDeep(body))).toBe(sorted);
    expect(signBody('secret', body)).toBe(createHmac('sha512', 'secret').update(sorted).digest('hex'));
  });

  it('does not depend on the order the keys arrive in', () => {
    const shuffled = { list: [{ a: 2, b: 1 }], fee: { currency: 'btc', serviceFee: 0 }, price_amount: 10.8, order_id: 'o-1', payment_status: 'finished' };
    expect(verifySignature('secret', shuffled, signBody('secret', body))).toBe(true);
  });

  it('refuses wrong, truncated, missing and non-hex signatures and changed bodies', () => {
    const sig = signBody('secret', body);
    expect(verifySignature('other', body, sig)).toBe(false);
    expect(verifySignature('secret', { ...body, price_amount: 1 }, sig)).toBe(false);
    expect(verifySignature('secret', body, sig.slice(0, 64))).toBe(false);
    expect(verifySignature('secret', body, undefined)).toBe(false);
    expect(verifySignature('secret', body, 'z'.repeat(128))).toBe(false);
    expect(verifySignature('secret', body, sig.toUpperCase())).toBe(true);
  });
});

describe('deeply nested bodies', () => {
  const nested = (n: number) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown;

  it('are refused, not a stack overflow', () => {
    const sig = 'a'.repeat(128);
    expect(verifySignature('secret', nested(30_000), sig)).toBe(false);
    expect(verifySignature('secret', { a: nested(30_000) }, sig)).toBe(false);
    expect(() => signBody('secret', nested(30_000))).toThrow(RangeError);
  });

  it('still sign at the depth bound', () => {
    const body = nested(MAX_SIGNED_DEPTH);
    expect(verifySignature('secret', body, signBody('secret', body))).toBe(true);
  });
});
