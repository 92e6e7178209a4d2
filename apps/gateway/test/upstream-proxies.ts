/** Local stand-ins for residential providers: proxy-chain (HTTP CONNECT) and a minimal SOCKS5 upstream. */
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Server as ProxyChainServer } from 'proxy-chain';

export interface SocksRequest {
  credentials: string;
  atyp: number;
  host: string;
  port: number;
}

/**
 * A minimal SOCKS5 upstream (username/password, CONNECT) that records each request as it arrived;
 * `route` picks where it really connects (by default, where it was asked to).
 */
export async function startSocksUpstream(
  route: (host: string, port: number) => { host: string; port: number } = (host, port) => ({ host, port }),
  banner?: Buffer,
) {
  const requests: SocksRequest[] = [];
  const server = createServer((s: Socket) => {
    s.on('error', () => undefined);
    let stage = 0;
    let credentials = '';
    s.on('data', function onData(d: Buffer) {
      if (stage === 0) {
        s.write(Buffer.from([5, 2]));
        stage = 1;
      } else if (stage === 1) {
        const ulen = d[1]!;
        credentials = `${d.toString('utf8', 2, 2 + ulen)}:${d.toString('utf8', 3 + ulen, 3 + ulen + d[2 + ulen]!)}`;
        s.write(Buffer.from([1, 0]));
        stage = 2;
      } else {
        s.off('data', onData);
        const atyp = d[3]!;
        const port = d.readUInt16BE(d.length - 2);
        const host =
          atyp === 1
            ? `${d[4]}.${d[5]}.${d[6]}.${d[7]}`
            : atyp === 4
              ? ipaddr.fromByteArray([...d.subarray(4, 20)]).toString()
              : d.toString('latin1', 5, 5 + d[4]!);
        requests.push({ credentials, atyp, host, port });
        const reply = Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
        // A target that speaks first, its bytes in the same segment as the reply.
        if (banner) return void s.end(Buffer.concat([reply, banner]));
        const t = connect(route(host, port), () => {
          s.write(reply);
          s.pipe(t).pipe(s);
        });
        t.on('error', () => s.destroy());
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, requests, close: () => server.close() };
}

/** proxy-chain requiring `password`; records the username and target of each tunnel. */
export async function startProxyChainUpstream(password: string) {
  const seen: Array<{ username: string; password: string; hostname: string; port: number }> = [];
  const server = new ProxyChainServer({
    port: 0,
    host: '127.0.0.1',
    prepareRequestFunction: ({ username, password: given, hostname, port }) => {
      seen.push({ username, password: given, hostname, port });
      return { requestAuthentication: given !== password };
    },
  });
  await server.listen();
  return { port: server.port, seen, close: () => server.close(true) };
}

/** Accepts connections and never answers: an upstream that times out. */
export async function startSilentUpstream() {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((s) => {
    accepted += 1;
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    get accepted() {
      return accepted;
    },
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
