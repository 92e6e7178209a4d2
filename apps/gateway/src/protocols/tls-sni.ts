/**
 * The server name (SNI) of a TLS ClientHello, read from a tunnel's first client bytes (RFC 8446
 * section 4.1.2, RFC 6066 section 3). Bounded and defensive: every length is checked against what
 * is there, and anything that is not a whole ClientHello in the first record is `null` (no name).
 * Never throws.
 */

/** `undefined`: not a TLS handshake at all; `null`: a ClientHello without a readable host name. */
export function clientHelloSni(buf: Buffer): string | null | undefined {
  // Record header: handshake (22), version 3.x, length.
  if (buf.length < 5 || buf[0] !== 22 || buf[1] !== 3) return undefined;
  const recordEnd = Math.min(buf.length, 5 + buf.readUInt16BE(3));
  let p = 5;
  // Handshake header: client_hello (1), 24-bit length.
  if (recordEnd < p + 4 || buf[p] !== 1) return null;
  p += 4;
  p += 2 + 32; // legacy_version, random
  if (p + 1 > recordEnd) return null;
  p += 1 + buf[p]!; // session id
  if (p + 2 > recordEnd) return null;
  p += 2 + buf.readUInt16BE(p); // cipher suites
  if (p + 1 > recordEnd) return null;
  p += 1 + buf[p]!; // compression methods
  if (p + 2 > recordEnd) return null;
  const extEnd = Math.min(recordEnd, p + 2 + buf.readUInt16BE(p));
  p += 2;
  while (p + 4 <= extEnd) {
    const type = buf.readUInt16BE(p);
    const len = buf.readUInt16BE(p + 2);
    p += 4;
    if (p + len > extEnd) return null;
    if (type === 0) {
      // server_name_list: 2-byte length, then entries of type (1), 2-byte length, name.
      let q = p + 2;
      const listEnd = Math.min(p + len, p + 2 + (len >= 2 ? buf.readUInt16BE(p) : 0));
      while (q + 3 <= listEnd) {
        const nameType = buf[q]!;
        const nameLen = buf.readUInt16BE(q + 1);
        q += 3;
        if (q + nameLen > listEnd) return null;
        if (nameType === 0) {
          const name = buf.toString('latin1', q, q + nameLen);
          return /^[\x21-\x7e]{1,253}$/.test(name) ? name.toLowerCase() : null;
        }
        q += nameLen;
      }
      return null;
    }
    p += len;
  }
  return null;
}

/**
 * A ClientHello is read whole before its name is checked, and never more than this: real ones are
 * a few hundred bytes to about 2 KB (post-quantum key shares), well under one record (16 KiB).
 */
export const MAX_CLIENT_HELLO_BYTES = 16 * 1024;

/**
 * What a tunnel's first client bytes say so far: `other` (not a TLS handshake: pass at once),
 * `more` (a ClientHello under way), `hello` (whole, with its name or null when it carries none), or
 * `unreadable` (a handshake record that is no ClientHello we can read, or one over the bound).
 * A ClientHello split over several records (legal, rare) is put back together first, so splitting
 * it does not hide its name.
 */
export type HelloPeek = { state: 'other' } | { state: 'more' } | { state: 'hello'; sni: string | null } | { state: 'unreadable' };

export function peekClientHello(buf: Buffer): HelloPeek {
  if (buf.length === 0) return { state: 'more' };
  if (buf[0] !== 22 || (buf.length > 1 && buf[1] !== 3)) return { state: 'other' };
  const fragments: Buffer[] = [];
  let body = 0;
  let p = 0;
  for (;;) {
    if (p + 5 > buf.length) return buf.length > MAX_CLIENT_HELLO_BYTES + 64 ? { state: 'unreadable' } : { state: 'more' };
    if (buf[p] !== 22 || buf[p + 1] !== 3) return { state: 'unreadable' };
    const len = buf.readUInt16BE(p + 3);
    if (len === 0 || body + len > MAX_CLIENT_HELLO_BYTES + 4) return { state: 'unreadable' };
    const end = p + 5 + Math.min(len, buf.length - p - 5);
    fragments.push(buf.subarray(p + 5, end));
    body += end - p - 5;
    const joined = fragments.length === 1 ? fragments[0]! : Buffer.concat(fragments);
    if (joined.length >= 4) {
      if (joined[0] !== 1) return { state: 'unreadable' };
      const helloLen = 4 + joined.readUIntBE(1, 3);
      if (helloLen > MAX_CLIENT_HELLO_BYTES + 4) return { state: 'unreadable' };
      if (joined.length >= helloLen) {
        // One record holding the whole hello, as clientHelloSni reads it.
        const record = Buffer.alloc(5 + helloLen);
        record[0] = 22;
        record[1] = 3;
        record[2] = 1;
        record.writeUInt16BE(helloLen, 3);
        joined.copy(record, 5, 0, helloLen);
        return { state: 'hello', sni: clientHelloSni(record) ?? null };
      }
    }
    if (end < p + 5 + len) return { state: 'more' };
    p = end;
  }
}
