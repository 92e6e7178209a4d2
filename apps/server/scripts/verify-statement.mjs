#!/usr/bin/env node
/**
 * `pnpm verify-statement <statement.json> [connections.csv] [--previous prev.json] [--key key.pem | --key-url URL]`
 *
 * Checks a signed daily statement with nothing but our public key: its Ed25519 signature over the
 * canonical JSON (RFC 8785) of every other field, the chain link to the previous statement (the
 * SHA-256 of its canonical JSON, signature included) when given, and the SHA-256 of the day's
 * connections CSV (GET /api/statements/:date/connections.csv) when given. Prints what holds and
 * what does not; exits 1 on any failure, 2 on a usage error.
 *
 * The public key: `--key <file>` (a PEM file, or the JSON answer of GET /api/statements/key), else
 * STATEMENT_PUBLIC_KEY (PEM text), else `--key-url <url of GET /api/statements/key>` (the only
 * case that fetches anything).
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import canonicalize from 'canonicalize';

const FIELDS = ['account', 'byCountry', 'connectionsDigest', 'date', 'final', 'previous', 'signature', 'totals'];

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/** The public key from PEM text or from the JSON answer of GET /api/statements/key. */
export function publicKeyFrom(text) {
  const trimmed = text.trim();
  const pem = trimmed.startsWith('{') ? JSON.parse(trimmed).publicKey : trimmed;
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the public key is not an Ed25519 key');
  return key;
}

/** Parses a statement file; a string saying why not when it is not one. */
function parse(bytes, what) {
  let s;
  try {
    s = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return `${what} is not JSON`;
  }
  if (!s || typeof s !== 'object' || Array.isArray(s)) return `${what} is not a statement`;
  const keys = Object.keys(s).sort();
  if (keys.join() !== FIELDS.join()) return `${what} does not have exactly the fields ${FIELDS.join(', ')}`;
  return s;
}

function signatureHolds(statement, key) {
  const { signature, ...signed } = statement;
  if (typeof signature !== 'string') return false;
  const raw = Buffer.from(signature, 'base64');
  // Lenient base64 would read other text as the same bytes: only the exact encoding counts.
  if (raw.length !== 64 || raw.toString('base64') !== signature) return false;
  return verify(null, Buffer.from(canonicalize(signed), 'utf8'), key, raw);
}

/**
 * The checks, each `{ ok, text }`, for the statement's bytes, its CSV's bytes and the previous
 * statement's bytes (both optional).
 */
export function verifyStatement({ statement, csv, previous, key }) {
  const checks = [];
  const s = parse(statement, 'the statement');
  if (typeof s === 'string') return [{ ok: false, text: s }];
  const name = `statement of ${s.account?.proxyUserId ?? '?'} (${s.account?.id ?? '?'}) for ${s.date}${s.final ? '' : ' (provisional: final false)'}`;
  checks.push(
    signatureHolds(s, key)
      ? { ok: true, text: `signature holds: ${name}` }
      : { ok: false, text: `signature does NOT hold: the ${name} was changed or not signed by this key` },
  );
  if (csv !== undefined) {
    const digest = sha256(csv);
    checks.push(
      digest === s.connectionsDigest
        ? { ok: true, text: `connections CSV matches connectionsDigest (${s.totals?.connections} connections stated)` }
        : { ok: false, text: `connections CSV does NOT match: its SHA-256 is ${digest}, the statement says ${s.connectionsDigest}` },
    );
  }
  if (previous !== undefined) {
    const p = parse(previous, 'the previous statement');
    if (typeof p === 'string') checks.push({ ok: false, text: p });
    else {
      checks.push(
        signatureHolds(p, key)
          ? { ok: true, text: `previous statement's signature holds (${p.date})` }
          : { ok: false, text: `previous statement's signature does NOT hold (${p.date})` },
      );
      const link = sha256(Buffer.from(canonicalize(p), 'utf8'));
      const sameAccount = p.account?.id === s.account?.id && p.date < s.date;
      checks.push(
        link === s.previous && sameAccount
          ? { ok: true, text: `chain holds: previous is the SHA-256 of the ${p.date} statement` }
          : {
              ok: false,
              text: sameAccount
                ? `chain does NOT hold: the ${p.date} statement's SHA-256 is ${link}, previous says ${s.previous}`
                : 'chain does NOT hold: the previous statement is of another account or not an earlier day',
            },
      );
    }
  }
  return checks;
}

function usage(message) {
  console.error(`${message}\nusage: pnpm verify-statement <statement.json> [connections.csv] [--previous prev.json] [--key key.pem | --key-url URL]`);
  process.exit(2);
}

async function main(argv) {
  const files = [];
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--previous' || a === '--key' || a === '--key-url') {
      if (!argv[i + 1]) usage(`${a} needs a value`);
      opts[a.slice(2)] = argv[++i];
    } else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else files.push(a);
  }
  if (files.length < 1 || files.length > 2) usage('give a statement file and optionally its connections CSV');
  // pnpm runs scripts from the repository root: paths are the caller's.
  const cwd = process.env.INIT_CWD ?? process.cwd();
  const read = (f) => readFileSync(resolve(cwd, f));
  let keyText = opts.key ? read(opts.key).toString('utf8') : process.env.STATEMENT_PUBLIC_KEY;
  if (!keyText && opts['key-url']) {
    const r = await fetch(opts['key-url']);
    if (!r.ok) usage(`${opts['key-url']} answered ${r.status}`);
    keyText = await r.text();
  }
  if (!keyText) usage('no public key: give --key, STATEMENT_PUBLIC_KEY or --key-url');
  let key;
  try {
    key = publicKeyFrom(keyText);
  } catch (err) {
    usage(`the public key is not usable: ${err.message}`);
  }
  const checks = verifyStatement({
    statement: read(files[0]),
    csv: files[1] ? read(files[1]) : undefined,
    previous: opts.previous ? read(opts.previous) : undefined,
    key,
  });
  for (const c of checks) console.log(`${c.ok ? 'OK  ' : 'FAIL'} ${c.text}`);
  if (!files[1]) console.log('--   connections not checked (no CSV given)');
  if (!opts.previous) console.log('--   chain not checked (no --previous given)');
  process.exit(checks.every((c) => c.ok) ? 0 : 1);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
