/**
 * Webhook signatures as NOWPayments defines them: HMAC-SHA512 over the JSON body with object keys
 * sorted recursively, hex encoded, compared in constant time. The sandbox signs the same way.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Deeper bodies are never genuine notifications; the bound keeps the recursion off the stack limit. */
export const MAX_SIGNED_DEPTH = 64;

export class TooDeepError extends RangeError {
  constructor() {
    super(`body nests deeper than ${MAX_SIGNED_DEPTH} levels`);
  }
}

export function sortKeysDeep(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_SIGNED_DEPTH) throw new TooDeepError();
  if (Array.isArray(value)) return value.map((v) => sortKeysDeep(v, depth + 1));
  const obj = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(obj)
      .sort()
      .map((k) => [k, sortKeysDeep(obj[k], depth + 1)]),
  );
}

export function signBody(secret: string, body: unknown): string {
  return createHmac('sha512', secret)
    .update(JSON.stringify(sortKeysDeep(body)))
    .digest('hex');
}

export function verifySignature(secret: string, body: unknown, signature: string | undefined): boolean {
  if (!signature || !/^[0-9a-fA-F]{128}$/.test(signature)) return false;
  let expected: Buffer;
  try {
    expected = Buffer.from(signBody(secret, body), 'hex');
  } catch (err) {
    if (err instanceof TooDeepError) return false;
    throw err;
  }
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
