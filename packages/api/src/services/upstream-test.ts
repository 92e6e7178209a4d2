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
import { randomSessionToken, renderUpstreamCredentials, upstreamNeedsNames, type TestUpstreamInput } from '@proxyhub/core';
import { bareHost, dialUpstream, isPrivateAddress } from '@proxyhub/core/node';
import { placeNames } from '@proxyhub/core/places';
import type { SecretBox } from '@proxyhub/auth';
import type { DbOrTx } from '@proxyhub/db';
import { upstreamForDial } from './upstreams';

/** The whole test, tunnel and page, gets this long. */
export const UPSTREAM_TEST_TIMEOUT_MS = 10_000;
const BODY_CHARS = 500;
/** Read no more of the page than this (the answer shows its first 500 characters). */
const BODY_LIMIT = 16 * 1024;

export type UpstreamTestAnswer =
  | { ok: true; status: number; latencyMs: number; username: string; body: string }
  | { ok: false; status: number | null; latencyMs: number; username: string; body: string; error: string };

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
  const location = { country: input.country, state: input.state, city: input.state ? input.city : undefined };
  // A line of its own: a fresh token and session id, as a newly generated line would have.
  const line = { location, session: randomSessionToken(), sid: randomSid(), durationMinutes: input.minutes };
  const credentials = renderUpstreamCredentials(up, line, upstreamNeedsNames(up) ? placeNames : undefined);
  const started = performance.now();
  const latencyMs = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(UPSTREAM_TEST_TIMEOUT_MS);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  let socket: Socket | undefined;
  const host = bareHost(url.hostname);
  // As the gateway does for a line: a literal private destination is refused before any upstream.
  if (!opts.allowPrivate && isIP(host) && isPrivateAddress(host)) {
    return { ok: false, status: null, latencyMs: 0, username: credentials.username, body: '', error: `Destination ${url.hostname} is a private address` };
  }
  try {
    socket = await dialUpstream(up, credentials, { host: url.hostname, port }, { timeoutMs: UPSTREAM_TEST_TIMEOUT_MS, allowPrivate: opts.allowPrivate });
    if (signal.aborted) throw new Error('Timed out after 10 s');
    const page = await fetchThrough(url, socket, signal);
    const answer = { status: page.status, latencyMs: latencyMs(), username: credentials.username, body: page.body };
    return page.status >= 200 && page.status < 400 ? { ok: true, ...answer } : { ok: false, ...answer, error: `The page answered ${page.status}` };
  } catch (err) {
    const message = signal.aborted ? `Timed out after ${UPSTREAM_TEST_TIMEOUT_MS / 1000} s` : (err as Error).message;
    return { ok: false, status: null, latencyMs: latencyMs(), username: credentials.username, body: '', error: message };
  } finally {
    socket?.destroy();
  }
}
