/**
 * Secrets at rest. Tokens and session ids are stored as SHA-256 only; credentials the user must see
 * again (API key, proxy password) are AES-256-GCM encrypted with a key derived from APP_SECRET and
 * looked up by HMAC, so a database dump alone reveals neither.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** 256 random bits, URL-safe. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** Random string over an alphabet, uniform (randomInt rejects biased draws). */
export function randomString(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

export class SecretBox {
  private readonly encKey: Buffer;
  private readonly macKey: Buffer;

  constructor(appSecret: string) {
    if (appSecret.length < 16) throw new Error('APP_SECRET must be at least 16 characters');
    this.encKey = Buffer.from(hkdfSync('sha256', appSecret, 'proxyhub', 'credential-encryption', 32));
    this.macKey = Buffer.from(hkdfSync('sha256', appSecret, 'proxyhub', 'credential-lookup', 32));
  }

  /** Deterministic keyed hash for lookups (API keys). */
  lookupHash(value: string): string {
    return createHmac('sha256', this.macKey).update(value).digest('hex');
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encKey, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  decrypt(sealed: string): string {
    const [v, iv, tag, body] = sealed.split('.');
    if (v !== 'v1' || !iv || !tag || body === undefined) throw new Error('unknown ciphertext format');
    const decipher = createDecipheriv('aes-256-gcm', this.encKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
