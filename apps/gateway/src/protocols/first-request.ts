/**
 * The targets an HTTP request names, read from a tunnel's first client bytes: its `Host` header
 * and, in absolute or authority form (a proxy behind the target), its request-target. A tunnel to
 * an allowed address must not carry a request for a blocked name (one address serves many sites),
 * so this is checked like a ClientHello's server name (tunnel-sni.ts). Bounded and defensive, like
 * the TLS reader: a head over MAX_HEAD_BYTES, a folded header line or a Host that is no host is
 * `unreadable` (closed), since a reading that differs from the origin's would hide the name.
 * Never throws.
 */
import { splitAuthority, targetHost, hostHeaderTarget } from './host';
import { MAX_HEAD_BYTES } from './http';

/** `other`: not an HTTP request (pass at once); `more`: one under way; `request`: whole, with the targets it names. */
export type RequestPeek = { state: 'other' } | { state: 'more' } | { state: 'request'; hosts: string[] } | { state: 'unreadable' };

/** A method so far, or a whole one and the space after it. */
const METHOD_SO_FAR = /^[A-Z]{1,20}$/;
const REQUEST_LINE = /^([A-Z]{1,20}) (\S+) HTTP\/\d\.\d\r?$/;

export function peekHttpRequest(buf: Buffer): RequestPeek {
  const lineEnd = buf.indexOf(10);
  const start = buf.toString('latin1', 0, Math.min(lineEnd < 0 ? buf.length : lineEnd, 64));
  const space = start.indexOf(' ');
  // Until the method has ended, any run of capitals may still become one.
  if (!METHOD_SO_FAR.test(space < 0 ? start : start.slice(0, space))) return { state: 'other' };
  if (space < 0) return lineEnd < 0 && buf.length <= 20 ? { state: 'more' } : { state: 'other' };
  if (lineEnd < 0) return buf.length > MAX_HEAD_BYTES ? { state: 'unreadable' } : { state: 'more' };
  const line = REQUEST_LINE.exec(buf.toString('latin1', 0, lineEnd));
  // A line that is not an HTTP request line (a Redis or SMTP-style command): another protocol.
  if (!line) return { state: 'other' };
  const text = buf.toString('latin1', 0, Math.min(buf.length, MAX_HEAD_BYTES + 4));
  const end = /\r?\n\r?\n/.exec(text);
  if (!end) return buf.length > MAX_HEAD_BYTES ? { state: 'unreadable' } : { state: 'more' };
  const hosts: string[] = [];
  const requestTarget = requestTargetHost(line[1]!, line[2]!);
  if (requestTarget === null) return { state: 'unreadable' };
  if (requestTarget) hosts.push(requestTarget);
  for (const header of text.slice(0, end.index).split(/\r?\n/).slice(1)) {
    if (header[0] === ' ' || header[0] === '\t') return { state: 'unreadable' };
    const colon = header.indexOf(':');
    if (colon < 0 || header.slice(0, colon).trim().toLowerCase() !== 'host') continue;
    const host = hostHeaderTarget(header.slice(colon + 1).trim());
    if (host === null) return { state: 'unreadable' };
    if (host) hosts.push(host);
  }
  return { state: 'request', hosts };
}

/** The host a request-target names ('' for origin form or `*`); null when it should name one and does not. */
function requestTargetHost(method: string, target: string): string | null {
  if (target.startsWith('/') || target === '*') return '';
  if (method === 'CONNECT') {
    const split = splitAuthority(target);
    return split?.host ? targetHost(split.host) : null;
  }
  try {
    const host = new URL(target).hostname;
    return targetHost(host.startsWith('[') ? host.slice(1, -1) : host);
  } catch {
    return null;
  }
}
