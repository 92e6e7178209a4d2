/**
 * An admin's "Test" of an upstream: one tunnel through it, opened exactly as a customer's line
 * would be (core's template rendering and dialling, the gateway's own code), then one GET of a
 * page through the tunnel. Nothing is metered or billed: no lease, no account. The answer shows
 * the username as sent, never the password.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { randomBytes } from 'node:crypto';
import { isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import {
  DomainError,
  lineNeeds,
  randomSessionToken,
  renderUpstreamCredentials,
  upstreamNeedsNames,
  upstreamUses,
  type TestUpstreamInput,
} from '@proxyhub/core';
import { bareHost, dialUpstream, EgressError, isPrivateAddress } from '@proxyhub/core/node';
import { placeNames } from '@proxyhub/core/places';
import type { SecretBox } from '@proxyhub/auth';
import type { DbOrTx } from '@proxyhub/db';
import { upstreamForDial } from './upstreams';

/** The whole test, tunnel and page, gets this long. */
export const UPSTREAM_TEST_TIMEOUT_MS = 10_000;
const BODY_CHARS = 500;
/** Read no more of the page than this (the answer shows its first 500 characters). */
const BODY_LIMIT = 16 * 1024;

/** What went wrong, by who is to blame: each with one sentence that says what to check. */
export type UpstreamTestFailure = 'tls' | 'certificate' | 'refused' | 'timeout' | 'auth' | 'dns' | 'private_upstream' | 'private' | 'page' | 'other';

export type UpstreamTestAnswer =
  | { ok: true; status: number; latencyMs: number; username: string; body: string }
  | {
      ok: false;
      status: number | null;
      latencyMs: number;
      username: string;
      body: string;
      /** The raw text (the upstream's refusal, the TLS library's words): the dialog's Details. */
      error: string;
      failure: UpstreamTestFailure;
      /** One sentence for `failure`, what the dialog says first. */
      reason: string;
    };

type DialFailure = Exclude<UpstreamTestFailure, 'page'>;
export const UPSTREAM_TEST_REASONS: Record<DialFailure, string> = {
  tls: 'The upstream did not answer TLS on this port: check the port and the protocol',
  refused: 'The upstream refused the connection on this port: check the host and the port',
  timeout: `The upstream did not answer within ${UPSTREAM_TEST_TIMEOUT_MS / 1000} s: check the host, the port and that the provider accepts this server's address`,
  auth: 'The upstream refused the username or password: check the account part of the template and the password',
  dns: "The upstream's host name does not resolve: check the host",
  certificate: "The upstream worked; the check page's TLS certificate is not trusted: give a check URL with a valid certificate",
  private_upstream: "The upstream's host is a private address, which this server does not dial: check the host",
  private: 'The check URL is a private address: give a public page',
  other: 'The upstream failed: see Details',
};

/** Which failure an error is: by its kind where dialling named one, else by the TLS library's codes and words. */
function failureOf(err: unknown, timedOut: boolean): DialFailure {
  if (timedOut) return 'timeout';
  if (err instanceof EgressError) {
    if (err.kind === 'timeout') return 'timeout';
    if (err.kind === 'refused') return 'refused';
    if (err.kind === 'dns') return 'dns';
    if (/is a private address/.test(err.message)) return 'private_upstream';
    // HTTP CONNECT answered 407, or SOCKS5's username/password step failed (RFC 1929).
    if (/\b407\b|authenticat/i.test(`${err.message} ${err.reply ?? ''}`)) return 'auth';
    if (/wrong version number|EPROTO|SSL|TLS/i.test(err.message)) return 'tls';
    return 'other';
  }
  const code = (err as NodeJS.ErrnoException).code ?? '';
  // The tunnel worked and TLS was spoken: the page's certificate failed Node's checks.
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return 'certificate';
  if (code.startsWith('ERR_SSL') || code === 'EPROTO' || /wrong version number|EPROTO|SSL routines|TLS/i.test((err as Error).message)) return 'tls';
  return 'other';
}

/** 8 characters of [a-z0-9], as a sticky line's `{sid}` is. */
function randomSid(): string {
  return [...randomBytes(8)].map((b) => (b % 36).toString(36)).join('');
}

/** One GET of `url` over a tunnel already open to its host (TLS inside it for https): the status and the body's first characters. */
export function fetchThrough(url: URL, socket: Socket, signal: AbortSignal, userAgent = 'ProxyHub upstream test'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const https = url.protocol === 'https:';
    const createConnection = () => {
      if (https) return tlsConnect({ socket, servername: url.hostname });
      socket.resume();
      return socket;
    };
    const req = (https ? httpsRequest : httpRequest)(
      url,
      { method: 'GET', createConnection, signal, headers: { connection: 'close', 'user-agent': userAgent } },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size >= BODY_LIMIT) return;
          chunks.push(chunk);
          size += chunk.length;
          if (size >= BODY_LIMIT) res.destroy();
        });
        const done = () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8').slice(0, BODY_CHARS) });
        res.on('end', done);
        res.on('close', done);
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export async function testUpstream(
  db: DbOrTx,
  secrets: SecretBox,
  input: TestUpstreamInput,
  opts: { allowPrivate: boolean; checkUrl: string },
): Promise<UpstreamTestAnswer> {
  const up = await upstreamForDial(db, secrets, input.id);
  const url = new URL(input.url ?? opts.checkUrl);
  const location = { country: input.country, state: input.state, city: input.state ? input.city : undefined, zip: input.zip, asn: input.asn };
  // A line of its own: a fresh token and session id, as a newly generated line would have.
  const line = { location, session: randomSessionToken(), sid: randomSid(), durationMinutes: input.minutes, hard: input.hard };
  // The gateway never sends such a line to this pool: testing it here would show a username no customer's line gets.
  const missing = lineNeeds(line).filter((t) => !upstreamUses(up, t.placeholder));
  if (missing.length > 0) {
    throw new DomainError(
      'BAD_REQUEST',
      `This upstream cannot carry ${missing.map((t) => t.label).join(' or ')}: its templates do not use ${missing.map((t) => `{${t.placeholder}}`).join(' or ')}`,
    );
  }
  const credentials = renderUpstreamCredentials(up, line, upstreamNeedsNames(up) ? placeNames : undefined);
  const started = performance.now();
  const latencyMs = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(UPSTREAM_TEST_TIMEOUT_MS);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  let socket: Socket | undefined;
  const host = bareHost(url.hostname);
  // As the gateway does for a line: a literal private destination is refused before any upstream.
  if (!opts.allowPrivate && isIP(host) && isPrivateAddress(host)) {
    const error = `Destination ${url.hostname} is a private address`;
    return {
      ok: false,
      status: null,
      latencyMs: 0,
      username: credentials.username,
      body: '',
      error,
      failure: 'private',
      reason: UPSTREAM_TEST_REASONS.private,
    };
  }
  try {
    socket = await dialUpstream(up, credentials, { host: url.hostname, port }, { timeoutMs: UPSTREAM_TEST_TIMEOUT_MS, allowPrivate: opts.allowPrivate });
    if (signal.aborted) throw new Error('Timed out after 10 s');
    const page = await fetchThrough(url, socket, signal);
    const answer = { status: page.status, latencyMs: latencyMs(), username: credentials.username, body: page.body };
    if (page.status >= 200 && page.status < 400) return { ok: true, ...answer };
    const error = `The page answered ${page.status}`;
    return { ok: false, ...answer, error, failure: 'page', reason: `The upstream worked; the check page answered ${page.status}: try another check URL` };
  } catch (err) {
    const timedOut = signal.aborted;
    const error = timedOut ? `Timed out after ${UPSTREAM_TEST_TIMEOUT_MS / 1000} s` : (err as Error).message;
    const failure = failureOf(err, timedOut);
    return {
      ok: false,
      status: null,
      latencyMs: latencyMs(),
      username: credentials.username,
      body: '',
      error,
      failure,
      reason: UPSTREAM_TEST_REASONS[failure],
    };
  } finally {
    socket?.destroy();
  }
}
