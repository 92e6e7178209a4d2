/**
 * A customer's "Test" of one of their own proxy lines (POST /api/proxy-test): the server opens a
 * CONNECT through our gateway exactly as the customer's client would (core's dialUpstream, the code
 * the gateway and an admin's upstream test dial with), with the line's username and its account's
 * password, looked up here (the caller never sends it), then GETs the IP-echo page
 * (PROXY_CHECK_URL) through the tunnel and looks the exit address up in the embedded country
 * database. The CONNECT carries a signature made with the internal key (core/node line-test.ts):
 * the gateway relays that tunnel unbilled and logs it with billedBytes 0.
 */
import { isIP, type Socket } from 'node:net';
import { DEFAULT_UPSTREAM_CHECK_URL, DomainError, LOCAL_GATEWAY_HOST, type ProxyTestAnswer, type ProxyTestFailure } from '@proxyhub/core';
import { dialUpstream, EgressError, LINE_TEST_HEADER, signLineTest, type LineProbe } from '@proxyhub/core/node';
import type { SecretBox } from '@proxyhub/auth';
import type { DbOrTx } from '@proxyhub/db';
import type { ApiConfig } from '../../config';
import { notYourLineMessage, ownLineAccount } from './line-rotations';
import { fetchThrough } from './upstream-test';

/** The whole test, tunnel and page, gets this long. */
export const PROXY_TEST_TIMEOUT_MS = 10_000;
const TIMED_OUT = `Timed out after ${PROXY_TEST_TIMEOUT_MS / 1000} s`;

export interface ProxyTestOptions {
  /** The IP-echo page (PROXY_CHECK_URL). */
  checkUrl: string;
  /** Where customers' clients reach the gateway, as the server can reach it too. */
  gateway: { host: string; port: number };
  /** Signs the test so the gateway does not bill it. */
  internalApiKey: string;
}

/** Where a line test goes: PROXY_CHECK_URL through the gateway's endpoint, signed with the internal key. */
export function proxyTestOptions(config: ApiConfig): ProxyTestOptions {
  const check = config.proxyCheck ?? {
    url: DEFAULT_UPSTREAM_CHECK_URL,
    gateway: { host: config.gateway.publicHost ?? LOCAL_GATEWAY_HOST, port: config.gateway.publicPort },
  };
  return { checkUrl: check.url, gateway: check.gateway, internalApiKey: config.internalApiKey };
}

/** The exit address in an IP-echo page's answer: a bare address, or JSON with `ip` (or `origin`, `query`). */
export function exitIpIn(body: string): string | null {
  const text = body.trim();
  if (isIP(text)) return text;
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    for (const key of ['ip', 'origin', 'query']) {
      const v = json[key];
      if (typeof v === 'string' && isIP(v.trim())) return v.trim();
    }
  } catch {
    // not JSON: no address to show
  }
  return null;
}

let countries: Promise<(ip: string) => string | null> | undefined;
/**
 * The address's country (ISO 3166-1 alpha-2) from the database the geoip-country package ships
 * (no download at run time); null for private addresses and ranges it does not know. Loaded on
 * the first test, not at start (it reads some 8 MB).
 */
export function countryOfAddress(ip: string): Promise<string | null> {
  // A CommonJS package: what it exports is the import's default.
  countries ??= import('geoip-country').then(
    ({ default: geoip }) =>
      (address: string) =>
        geoip.lookup(address)?.country ?? null,
  );
  return countries.then((lookup) => lookup(ip));
}

/**
 * Why the test failed, in the customer's terms, and who is to blame. The gateway answers a line it
 * accepted but could not carry with 502/504 and the dialling error's text: naming the check page's
 * own host and port (or "Cannot resolve <host>"), the line works and the page was unreachable; any
 * other 502/504 is the upstream provider behind the gateway; any other status is the gateway
 * refusing the line itself (credentials, balance, location, allow-list).
 */
function blame(err: unknown, target: { host: string; port: number }): { failure: ProxyTestFailure; error: string } {
  if (!(err instanceof EgressError))
    return { failure: 'check_page', error: `The line works, but the check page did not answer through it: ${(err as Error).message}` };
  if (!err.reply) return { failure: 'gateway', error: `The gateway did not answer: ${err.message}` };
  const answer = err.reply.replace(/^HTTP\/1\.[01] /, '');
  const status = Number.parseInt(answer, 10);
  const text = answer.slice(answer.indexOf(': ') + 2);
  if (status === 502 || status === 504) {
    const names = [`${target.host}:${target.port}`, `[${target.host}]:${target.port}`, `Cannot resolve ${target.host}`];
    if (answer.includes(': ') && names.some((n) => text.includes(n))) {
      return { failure: 'check_page', error: `The line works, but the check page could not be reached: ${text}` };
    }
    return { failure: 'upstream', error: `The upstream provider failed: ${answer}` };
  }
  return { failure: 'refused', error: `The gateway refused the line: ${answer}` };
}

/** The line's account, when it is one of the user's (main, batch or sub-account); 403 otherwise, whether it exists or not. */
async function ownLinePassword(db: DbOrTx, secrets: SecretBox, userId: string, username: string): Promise<string> {
  const account = await ownLineAccount(db, userId, username);
  if (!account) throw new DomainError('FORBIDDEN', notYourLineMessage(username));
  return secrets.decrypt(account.passwordEnc);
}

/**
 * What one line test through the gateway saw: the page's exit and its country, with `connectMs`
 * (dialling the gateway to the tunnel open) and `latencyMs` (the whole test); or why it failed.
 */
export type GatewayLineResult =
  | { ok: true; connectMs: number; latencyMs: number; exitIp: string | null; country: string | null }
  | { ok: false; failure: ProxyTestFailure; error: string; connectMs: number | null };

/**
 * One test of a line through the gateway, as the customer's Test and the quality prober make it:
 * CONNECT with the line's credentials and the signed header (`probe`: through that pool only),
 * then one GET of the check page through the tunnel.
 */
export async function testLineThroughGateway(
  opts: ProxyTestOptions,
  line: { username: string; password: string; probe?: LineProbe },
): Promise<GatewayLineResult> {
  const { username, password } = line;
  const url = new URL(opts.checkUrl);
  const target = { host: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
  const started = performance.now();
  const signal = AbortSignal.timeout(PROXY_TEST_TIMEOUT_MS);
  const timedOut = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error(TIMED_OUT)), { once: true }));
  timedOut.catch(() => undefined);
  let socket: Socket | undefined;
  let connectMs: number | null = null;
  try {
    const dialling = dialUpstream({ protocol: 'http', ...opts.gateway }, { username, password }, target, {
      timeoutMs: PROXY_TEST_TIMEOUT_MS,
      // The gateway's address is our own configuration, never the caller's; the gateway checks the target.
      allowPrivate: true,
      headers: { [LINE_TEST_HEADER]: signLineTest(opts.internalApiKey, username, Date.now(), line.probe) },
    });
    // A tunnel that opens after the deadline is closed at once.
    dialling.then(
      (s) => signal.aborted && s.destroy(),
      () => undefined,
    );
    socket = await Promise.race([dialling, timedOut]);
    connectMs = Math.round(performance.now() - started);
    const page = await fetchThrough(url, socket, signal, 'ProxyHub line test');
    const latencyMs = Math.round(performance.now() - started);
    if (page.status < 200 || page.status >= 400) {
      return { ok: false, failure: 'check_page', error: `The line works, but the check page answered ${page.status} through it`, connectMs };
    }
    const exitIp = exitIpIn(page.body);
    return { ok: true, connectMs, latencyMs, exitIp, country: exitIp ? await countryOfAddress(exitIp) : null };
  } catch (err) {
    return signal.aborted ? { ok: false, failure: 'gateway', error: TIMED_OUT, connectMs } : { ok: false, ...blame(err, target), connectMs };
  } finally {
    socket?.destroy();
  }
}

export async function testProxyLine(
  db: DbOrTx,
  secrets: SecretBox,
  input: { userId: string; username: string },
  opts: ProxyTestOptions,
): Promise<ProxyTestAnswer> {
  const password = await ownLinePassword(db, secrets, input.userId, input.username);
  const r = await testLineThroughGateway(opts, { username: input.username, password });
  return r.ok ? { ok: true, latencyMs: r.latencyMs, exitIp: r.exitIp, country: r.country } : { ok: false, failure: r.failure, error: r.error };
}
