/** Targets as clients name them, checked before anything is looked up or connected to. */
import { isIP } from 'node:net';
import { numericIPv4 } from '@proxyhub/core';

export interface HostPort {
  host: string;
  port: number;
}

export function validPort(p: string): number | null {
  if (!/^\d{1,5}$/.test(p)) return null;
  const n = Number(p);
  return n >= 1 && n <= 65535 ? n : null;
}

const HOSTNAME_RE = /^[A-Za-z0-9]([A-Za-z0-9-]{0,62})?(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})?)*\.?$/;

export function validHost(host: string): boolean {
  return host.length > 0 && host.length <= 253 && (isIP(host) !== 0 || HOSTNAME_RE.test(host));
}

/**
 * The host a target is checked and dialled as: a numeric spelling of an IPv4 address (`127.1`,
 * `0x7f000001`) becomes its dotted quad, so the rules for addresses see it (core's numericIPv4);
 * null when it is no host at all.
 */
export function targetHost(host: string): string | null {
  const v4 = numericIPv4(host);
  if (v4 !== undefined) return v4;
  return validHost(host) ? host : null;
}

/** `host[:port]` or `[v6][:port]`, split; null when the brackets or the port are wrong. */
export function splitAuthority(authority: string): { host: string; port: number | null } | null {
  let host: string;
  let port: string | null = null;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    if (close < 0) return null;
    host = authority.slice(1, close);
    const rest = authority.slice(close + 1);
    if (rest) {
      if (rest[0] !== ':') return null;
      port = rest.slice(1);
    }
    if (isIP(host) !== 6) return null;
  } else {
    const c = authority.lastIndexOf(':');
    host = c < 0 ? authority : authority.slice(0, c);
    if (c >= 0) port = authority.slice(c + 1);
  }
  if (port === null) return { host, port: null };
  const n = validPort(port);
  return n ? { host, port: n } : null;
}

/**
 * The target a `Host` header names (its port aside), as targetHost makes it; '' for an empty one
 * (allowed when the request's URI carries the authority); null when it names no host.
 */
export function hostHeaderTarget(value: string): string | null {
  if (value === '') return '';
  const split = splitAuthority(value);
  return split ? targetHost(split.host) : null;
}
