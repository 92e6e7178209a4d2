/**
 * Requests the server makes to addresses an admin or a customer typed (webhooks, provider APIs).
 * Protects our own network from being reached through them (SSRF): a URL is https (plain http only
 * to loopback, and only where private targets are allowed, as in tests), carries no credentials,
 * and its host is refused when it is or resolves to a private, loopback, link-local or metadata
 * address, when it is saved and again at every request (DNS may change: we connect to the address
 * that was checked). Answers are read up to a cap and within a deadline, so a hostile or broken
 * endpoint costs us a bounded amount.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { DomainError } from '@proxyhub/core';
import { bareHost, EgressError, resolveChecked } from '@proxyhub/core/node';

export interface OutboundPolicy {
  allowPrivate: boolean;
}

const LOOPBACK_NAMES = /^(localhost|127\.\d+\.\d+\.\d+|::1)$/i;

/** The refusals, worded with the field's label (`URL`, `Balance URL`). */
export const httpsOnlyMessage = (label: string) => `${label} must start with https://`;
export const privateHostMessage = (label: string) => `${label} must not point to a private, loopback or metadata address`;

/**
 * The URL's scheme and host are acceptable, and its host resolves to public addresses only (unless
 * allowed). `address` is null when the name does not resolve now: it cannot be judged yet.
 */
export async function checkOutboundUrl(raw: string, policy: OutboundPolicy, label = 'URL'): Promise<{ url: URL; address: string | null }> {
  const url = new URL(raw);
  const host = bareHost(url.hostname);
  const plainLoopback = url.protocol === 'http:' && policy.allowPrivate && LOOPBACK_NAMES.test(host);
  if (url.protocol !== 'https:' && !plainLoopback) throw new DomainError('BAD_REQUEST', httpsOnlyMessage(label));
  if (url.username || url.password) throw new DomainError('BAD_REQUEST', `${label} must not contain a username or password`);
  try {
    return { url, address: await resolveChecked(host, policy.allowPrivate, label) };
  } catch (err) {
    if (err instanceof EgressError && err.kind === 'forbidden') throw new DomainError('BAD_REQUEST', privateHostMessage(label));
    if (err instanceof EgressError) return { url, address: null };
    throw err;
  }
}

export interface OutboundRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** The most of the answer's body read; more fails the request. 0: the body is discarded. */
  maxBodyBytes: number;
}

/** An answer that came back: its status and (up to the cap) its body. */
export interface OutboundAnswer {
  status: number;
  body: string;
}

/** One request to the address that was checked; rejects with a reason a person can read. */
export function sendToCheckedAddress(url: URL, address: string, req: OutboundRequest): Promise<OutboundAnswer> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers: Record<string, string> = { ...req.headers, host: url.host };
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body).toString();
    let settled = false;
    const settle = (err: Error | null, answer?: OutboundAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      if (err) {
        r.destroy();
        reject(err);
      } else resolve(answer!);
    };
    const deadline = setTimeout(() => settle(new Error(`No answer within ${req.timeoutMs / 1000} s`)), req.timeoutMs);
    const r = send(
      {
        host: address,
        port: url.port || (url.protocol === 'https:' ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: req.method,
        // TLS checks the certificate against the name, while the socket goes to the checked address.
        servername: url.hostname,
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (req.maxBodyBytes === 0) return;
          size += c.length;
          if (size > req.maxBodyBytes) settle(new Error(`Answer larger than ${req.maxBodyBytes / 1024} KiB`));
          else chunks.push(c);
        });
        res.on('end', () => settle(null, { status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (err) => settle(err));
      },
    );
    r.on('error', (err) => settle(err));
    r.end(req.body);
  });
}

/** Checks the URL (as at save) and sends the request to the address checked. */
export async function requestChecked(raw: string, policy: OutboundPolicy, req: OutboundRequest, label = 'URL'): Promise<OutboundAnswer> {
  const { url, address } = await checkOutboundUrl(raw, policy, label);
  if (!address) throw new Error(`Cannot resolve ${url.hostname}`);
  return sendToCheckedAddress(url, address, req);
}
