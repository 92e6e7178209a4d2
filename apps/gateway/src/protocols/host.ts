/** Targets as clients name them, checked before anything is looked up or connected to. */
import { isIP } from 'node:net';

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
