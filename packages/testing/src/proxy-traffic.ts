/** Traffic through a proxy under test: a loopback target that counts bytes, curl, raw TCP. */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readdir } from 'node:fs/promises';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface TargetConnection {
  bytesRead: number;
  bytesWritten: number;
}

/**
 * A loopback HTTP target: GET /download?bytes=N sends N bytes, POST /upload counts the body, GET /ip
 * answers `{ ip }` as an IP-echo page does,
 * anything else says hello. Remembers the bytes of every closed connection, to compare exactly.
 */
export async function startTarget() {
  const closed: TargetConnection[] = [];
  const waiters: Array<() => void> = [];
  const payload = Buffer.alloc(64 * 1024, 'x');
  const server: HttpServer = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://target');
    if (url.pathname === '/download') {
      let left = Number(url.searchParams.get('bytes') ?? '0');
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(left) });
      const pump = () => {
        while (left > 0) {
          const n = Math.min(left, payload.length);
          left -= n;
          if (!res.write(n === payload.length ? payload : payload.subarray(0, n))) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
      return;
    }
    if (url.pathname === '/upload') {
      let n = 0;
      req.on('data', (c: Buffer) => (n += c.length));
      req.on('end', () => res.end(JSON.stringify({ received: n })));
      return;
    }
    if (url.pathname === '/ip') {
      // An IP-echo page (as PROXY_CHECK_URL is): the caller's address, or the one `as` names.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ip: url.searchParams.get('as') ?? req.socket.remoteAddress }));
      return;
    }
    res.end('hello from target\n');
  });
  server.on('connection', (s: Socket) => {
    s.on('close', () => {
      closed.push({ bytesRead: s.bytesRead, bytesWritten: s.bytesWritten });
      for (const w of waiters.splice(0)) w();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    closed,
    /** Resolves when at least n connections have closed. */
    async closedCount(n: number) {
      while (closed.length < n) await new Promise<void>((r) => waiters.push(r));
      return closed;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
    server,
  };
}

export interface CurlResult {
  code: number;
  status: number;
  stdout: string;
  stderr: string;
}

/** curl as a child process (async: the server and gateway live in this process). */
export function curl(args: string[]): Promise<CurlResult> {
  return new Promise((resolve) => {
    execFile('curl', ['-sS', '--max-time', '30', '-w', '\n%{http_code}', ...args], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const i = stdout.lastIndexOf('\n');
      resolve({
        code: err ? ((err as { code?: number }).code ?? 1) : 0,
        status: Number(stdout.slice(i + 1)),
        stdout: stdout.slice(0, i),
        stderr,
      });
    });
  });
}

/** A raw TCP client: sends bytes, collects everything until the gateway closes. */
export function rawExchange(port: number, chunks: Buffer[], opts: { endAfter?: boolean } = {}): Promise<{ data: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    const parts: Buffer[] = [];
    s.on('connect', () => {
      for (const c of chunks) s.write(c);
      if (opts.endAfter) s.end();
    });
    s.on('data', (d: Buffer) => parts.push(d));
    s.on('error', () => undefined);
    s.on('close', () => resolve({ data: Buffer.concat(parts), closed: true }));
  });
}

/** A SOCKS5 client's greeting, username/password login and CONNECT request to the domain `host`, as one list of writes. */
export function socksConnectWrites(username: string, password: string, host: string, port: number): Buffer[] {
  const user = Buffer.from(username);
  const pass = Buffer.from(password);
  const name = Buffer.from(host);
  const req = Buffer.concat([Buffer.from([5, 1, 0, 3, name.length]), name, Buffer.from([port >> 8, port & 255])]);
  return [Buffer.from([5, 1, 2]), Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]), req];
}

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/**
 * A CONNECT tunnel through the proxy on `port` to 127.0.0.1:`targetPort`; rejects with the proxy's
 * answer when refused. `from`: the client's source address (another loopback address, 127.0.0.2).
 */
export function connectTunnel(port: number, targetPort: number, username: string, password: string, from?: string): Promise<Socket> {
  return tunnelOver(connect({ host: '127.0.0.1', port, ...(from ? { localAddress: from } : {}) }), targetPort, username, password);
}

/** The CONNECT handshake of connectTunnel on a socket already connected (or connecting) to the proxy. */
export async function tunnelOver(socket: Socket, targetPort: number, username: string, password: string): Promise<Socket> {
  return (await tunnelAnswered(socket, targetPort, username, password)).socket;
}

/** tunnelOver, with the proxy's answer head (its status line and headers, no blank line). */
export function tunnelAnswered(socket: Socket, targetPort: number, username: string, password: string): Promise<{ socket: Socket; head: string }> {
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.write(`CONNECT 127.0.0.1:${targetPort} HTTP/1.1\r\nProxy-Authorization: ${basic(username, password)}\r\n\r\n`);
    let head = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      head = Buffer.concat([head, d]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      if (!head.subarray(0, end).toString('latin1').startsWith('HTTP/1.1 200')) return reject(new Error(head.toString('latin1')));
      if (head.length > end + 4) socket.unshift(head.subarray(end + 4));
      resolve({ socket, head: head.subarray(0, end).toString('latin1') });
    };
    socket.on('data', onData);
  });
}

/** Sends `request` through an open tunnel; resolves with the bytes received until the socket closes. */
export function exchangeUntilClosed(socket: Socket, request: string): Promise<number> {
  return new Promise((resolve) => {
    let n = 0;
    socket.on('data', (d: Buffer) => (n += d.length));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(n));
    socket.write(request);
  });
}

/** Resolves when the socket has closed, whatever the reason. */
export function socketClosed(socket: Socket): Promise<void> {
  socket.on('error', () => undefined);
  return new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
}

/** Open file descriptors of this process. */
export async function openFds(): Promise<number> {
  return (await readdir('/proc/self/fd')).length;
}
