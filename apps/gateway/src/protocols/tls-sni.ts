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
