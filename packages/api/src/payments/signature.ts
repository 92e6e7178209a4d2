/**
 * Webhook signatures as NOWPayments defines them: HMAC-SHA512 over the JSON body with object keys
 * sorted recursively, hex encoded, compared in constant time. The sandbox signs the same way.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(obj)
        .sort()
        .map((k) => [k, sortKeysDeep(obj[k])]),
    );
  }
  return value;
}

export function signBody(secret: string, body: unknown): string {
  return createHmac('sha512', secret).update(JSON.stringify(sortKeysDeep(body))).digest('hex');
}

export function verifySignature(secret: string, body: unknown, signature: string | undefined): boolean {
  if (!signature || !/^[0-9a-fA-F]{128}$/.test(signature)) return false;
  const expected = Buffer.from(signBody(secret, body), 'hex');
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
