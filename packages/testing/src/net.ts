import { request as httpRequest, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import type { TestServer } from './server';

export interface RawResponse {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
  json: unknown;
}

/** node:http request: lets a test send any Host header, raw bytes and odd content types. */
export function rawRequest(
  server: TestServer,
  opts: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawResponse> {
  const url = new URL(server.url);
  const headers = { ...opts.headers };
  // Node frames a body with Content-Length for POST and PATCH only; a DELETE's body would go out
  // unframed and be read by the server as a second request.
  const framed = Object.keys(headers).some((h) => /^(content-length|transfer-encoding)$/i.test(h));
  if (opts.body !== undefined && !framed) headers['content-length'] = String(Buffer.byteLength(opts.body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: opts.method, path: opts.path, headers, setHost: !opts.headers?.host, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = undefined;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

export function listen(server: HttpServer | NetServer): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : 0);
    });
  });
}

export function closeServer(server: HttpServer | NetServer): Promise<void> {
  return new Promise((resolve) => {
    if ('closeAllConnections' in server) server.closeAllConnections();
    server.close(() => resolve());
  });
}

/**
 * `count` consecutive ports free on 127.0.0.1 just now (a gateway's entry ports in a test): a random
 * base below the kernel's ephemeral range, tried until every port of it binds.
 */
export async function freePortRange(count: number): Promise<{ from: number; to: number }> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const from = 20_000 + Math.floor(Math.random() * 10_000);
    const held: NetServer[] = [];
    let ok = true;
    for (let port = from; ok && port < from + count; port += 1) {
      const s = createNetServer();
      ok = await new Promise<boolean>((resolve) => {
        s.once('error', () => resolve(false));
        s.listen(port, '127.0.0.1', () => resolve(true));
      });
      if (ok) held.push(s);
    }
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
    if (ok) return { from, to: from + count - 1 };
  }
  throw new Error(`no ${count} consecutive free ports`);
}
