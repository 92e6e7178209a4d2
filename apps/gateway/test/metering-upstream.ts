/**
 * A residential provider as the reconciliation sees it: a proxy (HTTP CONNECT and SOCKS5 on one
 * port; the first byte decides) that meters every byte it exchanges with its client, our gateway,
 * handshakes and headers included, and serves that count per UTC day through the `custom` usage
 * contract (`GET /usage?date=YYYY-MM-DD`, `Authorization: Bearer <key>`, `{ date, bytes }`); its
 * balance (`GET /balance`) is a terabyte that never runs out.
 * A connection is counted when it closes, as a provider's meter closes its record.
 */
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { startFakeJsonApi } from './helpers';

const today = () => new Date().toISOString().slice(0, 10);

export async function startMeteringUpstream(key: string) {
  const usage = new Map<string, bigint>();
  let open = 0;
  const idle: Array<() => void> = [];
  const count = (s: Socket) => {
    usage.set(today(), (usage.get(today()) ?? 0n) + BigInt(s.bytesRead + s.bytesWritten));
    open -= 1;
    if (open === 0) for (const w of idle.splice(0)) w();
  };
  const relay = (client: Socket, host: string, port: number, reply: Buffer, rest: Buffer) => {
    const target = connect({ host, port }, () => {
      client.write(reply);
      if (rest.length) target.write(rest);
      client.pipe(target).pipe(client);
    });
    target.on('error', () => client.destroy());
    client.on('close', () => target.destroy());
  };
  const server = createServer((client) => {
    open += 1;
    client.on('error', () => undefined);
    client.on('close', () => count(client));
    let buf = Buffer.alloc(0);
    let stage = 0;
    let socks: boolean | null = null;
    client.on('data', function onData(d: Buffer) {
      buf = Buffer.concat([buf, d]);
      socks ??= buf[0] === 5;
      if (!socks) {
        // HTTP CONNECT: the request head, then a tunnel.
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        client.off('data', onData);
        const [host, port] = buf.toString('latin1', 0, end).split(' ')[1]!.split(':');
        return relay(client, host!, Number(port), Buffer.from('HTTP/1.1 200 Connection established\r\n\r\n'), buf.subarray(end + 4));
      }
      // SOCKS5: greeting, username/password, CONNECT (a domain or an IPv4 address).
      if (stage === 0 && buf.length >= 2 + buf[1]!) {
        buf = buf.subarray(2 + buf[1]!);
        client.write(Buffer.from([5, 2]));
        stage = 1;
      }
      if (stage === 1 && buf.length >= 2 && buf.length >= 3 + buf[1]! && buf.length >= 3 + buf[1]! + buf[2 + buf[1]!]!) {
        buf = buf.subarray(3 + buf[1]! + buf[2 + buf[1]!]!);
        client.write(Buffer.from([1, 0]));
        stage = 2;
      }
      if (stage === 2 && buf.length >= 5) {
        const atyp = buf[3]!;
        const len = atyp === 1 ? 4 : atyp === 3 ? 1 + buf[4]! : 16;
        if (buf.length < 4 + len + 2) return;
        client.off('data', onData);
        const host = atyp === 1 ? [...buf.subarray(4, 8)].join('.') : buf.toString('latin1', 5, 5 + buf[4]!);
        const port = buf.readUInt16BE(4 + len);
        relay(client, host, port, Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]), buf.subarray(4 + len + 2));
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const api = await startFakeJsonApi((req, send) => {
    const url = new URL(req.url, 'http://provider');
    if (req.headers.authorization !== `Bearer ${key}`) return send(401, { error: 'Invalid API key' });
    if (url.pathname === '/balance') return send(200, { bytes: String(1n << 40n) });
    if (url.pathname !== '/usage') return send(404, { error: 'Not found' });
    const date = url.searchParams.get('date') ?? '';
    send(200, { date, bytes: String(usage.get(date) ?? 0n) });
  });
  return {
    port: (server.address() as AddressInfo).port,
    usageUrl: `${api.url}/usage`,
    balanceUrl: `${api.url}/balance`,
    /** Today's count so far. */
    today: () => usage.get(today()) ?? 0n,
    /** Resolves once every connection it accepted has closed (and been counted). */
    settled: () => (open === 0 ? Promise.resolve() : new Promise<void>((r) => idle.push(r))),
    close: async () => {
      server.close();
      await api.close();
    },
  };
}
