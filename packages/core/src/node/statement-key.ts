import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';

/**
 * STATEMENT_SIGNING_KEY: an Ed25519 private key as PEM (`-----BEGIN PRIVATE KEY-----`) or as the
 * base64 of its PKCS#8 DER bytes. Throws a readable error for anything else, so a bad key stops the
 * server at start rather than at midnight.
 */
export function parseStatementSigningKey(text: string): KeyObject {
  let key: KeyObject;
  try {
    key = text.includes('-----BEGIN')
      ? createPrivateKey(text.replace(/\\n/g, '\n'))
      : createPrivateKey({ key: Buffer.from(text.trim(), 'base64'), format: 'der', type: 'pkcs8' });
  } catch {
    throw new Error('STATEMENT_SIGNING_KEY must be an Ed25519 private key (PEM, or base64 PKCS#8)');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('STATEMENT_SIGNING_KEY must be an Ed25519 private key (PEM, or base64 PKCS#8)');
  return key;
}

/** A new Ed25519 private key as base64 PKCS#8 (development's generated STATEMENT_SIGNING_KEY). */
export function newStatementSigningKey(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
}
