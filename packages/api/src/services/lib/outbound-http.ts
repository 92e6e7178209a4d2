/**
 * Requests the server makes to addresses an admin or a customer typed (webhooks, provider APIs).
 * Protects our own network from being reached through them (SSRF): a URL is https (plain http only
 * to loopback, and only where private targets are allowed, as in tests), carries no credentials,
 * and its host is refused when it is or resolves to a private, link-local or metadata address
 * whatever the private-egress setting (that setting is for the gateway's tests and development: it
 * never opens our private networks to a typed URL); loopback is excepted only where private targets
 * are allowed. Checked when saved and again at every request (DNS may change: we connect to the
 * address that was checked). Each request has one deadline for the whole exchange and reads its
 * answer up to a cap, so a hostile or broken endpoint (one trickling a byte every few seconds never
 * idles) costs us a bounded amount.
 */
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { DomainError } from '@proxyhub/core';
import { bareHost, EgressError, embeddedIPv4, resolveChecked } from '@proxyhub/core/node';

export interface OutboundPolicy {
  allowPrivate: boolean;
}

const LOOPBACK_NAMES = /^(localhost|127\.\d+\.\d+\.\d+|::1)$/i;
/** The most of an answer's head read. */
export const OUTBOUND_HEAD_BYTES = 8 * 1024;

/** The refusals, worded with the field's label (`URL`, `Balance URL`). */
export const httpsOnlyMessage = (label: string) => `${label} must start with https://`;
export const privateHostMessage = (label: string) => `${label} must not point to a private, loopback or metadata address`;

const isLoopbackAddress = (a: string): boolean => {
  if (isIP(a) === 4) return a.startsWith('127.');
  if (a === '::1') return true;
  const v4 = embeddedIPv4(a);
  return v4.length > 0 && v4.every((x) => x.startsWith('127.'));
};

/** The host's first address when every address it has is loopback; null otherwise. */
async function loopbackOnly(host: string): Promise<string | null> {
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return null;
  }
  return addresses.length && addresses.every(isLoopbackAddress) ? addresses[0]! : null;
}

/**
 * The URL's scheme and host are acceptable, and its host resolves to public addresses only (or,
 * where private targets are allowed, to loopback only). `address` is null when the name does not
 * resolve now: it cannot be judged yet.
 */
export async function checkOutboundUrl(raw: string, policy: OutboundPolicy, label = 'URL'): Promise<{ url: URL; address: string | null }> {
  const url = new URL(raw);
  const host = bareHost(url.hostname);
  const plainLoopback = url.protocol === 'http:' && policy.allowPrivate && LOOPBACK_NAMES.test(host);
  if (url.protocol !== 'https:' && !plainLoopback) throw new DomainError('BAD_REQUEST', httpsOnlyMessage(label));
  if (url.username || url.password) throw new DomainError('BAD_REQUEST', `${label} must not contain a username or password`);
  try {
    return { url, address: await resolveChecked(host, false, label) };
  } catch (err) {
    if (err instanceof EgressError && err.kind === 'forbidden') {
      const loopback = policy.allowPrivate ? await loopbackOnly(host) : null;
      if (loopback) return { url, address: loopback };
      throw new DomainError('BAD_REQUEST', privateHostMessage(label));
    }
    if (err instanceof EgressError) return { url, address: null };
    throw err;
  }
}

export interface OutboundRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** When the whole exchange must be over (ms since the epoch): connecting, sending and the answer. */
  deadline: number;
  /** The most of the answer's body read; more fails the request. 0: done at the status line, the body is never read. */
  maxBodyBytes: number;
}

/** An answer that came back: its status and (up to the cap) its body. */
export interface OutboundAnswer {
  status: number;
  body: string;
}

export const noAnswerMessage = (timeoutMs: number) => `No answer within ${timeoutMs / 1000} s`;

/** One request to the address that was checked; rejects with a reason a person can read. */
export function sendToCheckedAddress(url: URL, address: string, req: OutboundRequest, noAnswer = 'No answer in time'): Promise<OutboundAnswer> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers: Record<string, string> = { ...req.headers, host: url.host };
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body).toString();
    let settled = false;
    const settle = (err: Error | null, answer?: OutboundAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        r.destroy();
        reject(err);
      } else resolve(answer!);
    };
    const timer = setTimeout(() => settle(new Error(noAnswer)), Math.max(0, req.deadline - Date.now()));
    const r = send(
      {
        host: address,
        port: url.port || (url.protocol === 'https:' ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: req.method,
        // TLS checks the certificate against the name, while the socket goes to the checked address
        // (SNI carries names only).
        ...(isIP(bareHost(url.hostname)) ? {} : { servername: url.hostname }),
        headers,
        agent: false,
        maxHeaderSize: OUTBOUND_HEAD_BYTES,
      },
      (res) => {
        res.on('error', (err) => settle(err));
        if (req.maxBodyBytes === 0) {
          settle(null, { status: res.statusCode ?? 0, body: '' });
          res.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > req.maxBodyBytes) settle(new Error(`Answer larger than ${req.maxBodyBytes / 1024} KiB`));
          else chunks.push(c);
        });
        res.on('end', () => settle(null, { status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    r.on('error', (err) => settle(err));
    r.end(req.body);
  });
}

/** Rejects with `message` unless `promise` settles before `deadline`. */
export function before<T>(promise: Promise<T>, deadline: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), Math.max(0, deadline - Date.now()))));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Checks the URL (as at save) and sends the request to the address checked, all within `timeoutMs`. */
export async function requestChecked(
  raw: string,
  policy: OutboundPolicy,
  req: Omit<OutboundRequest, 'deadline'> & { timeoutMs: number },
  label = 'URL',
): Promise<OutboundAnswer> {
  const deadline = Date.now() + req.timeoutMs;
  const noAnswer = noAnswerMessage(req.timeoutMs);
  const { url, address } = await before(checkOutboundUrl(raw, policy, label), deadline, noAnswer);
  if (!address) throw new Error(`Cannot resolve ${url.hostname}`);
  return sendToCheckedAddress(url, address, { ...req, deadline }, noAnswer);
}
