import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { connect as connectTcp, createServer as createNetServer, type Socket } from 'node:net';
import { closeServer, listen } from './net';

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** An unsigned JWT (alg none): enough for claims read straight from the token endpoint. */
export function unsignedJwt(claims: Record<string, unknown>): string {
  return `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
}

/** One request to a fake JSON API, read whole. */
export interface FakeApiRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body as text ('' when there is none). */
  body: string;
}

/**
 * A loopback HTTP server that reads each request whole and hands it to `handle` with `send`, which
 * answers it as JSON, and `sendText`, which answers text of a given type (a CSV report): the base
 * of the fakes of third-party APIs (Telegram, the payment provider, the upstream providers).
 */
export async function startFakeJsonApi(
  handle: (req: FakeApiRequest, send: (status: number, body: unknown) => void, sendText: (status: number, text: string, contentType: string) => void) => void,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const sendText = (status: number, text: string, contentType: string) => {
        res.writeHead(status, { 'content-type': contentType });
        res.end(text);
      };
      handle(
        { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: raw },
        (status, body) => sendText(status, JSON.stringify(body), 'application/json'),
        sendText,
      );
    });
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

export interface FakeGoogle {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  /** Form bodies the token endpoint received. */
  tokenRequests: URLSearchParams[];
  /** Claims the next token response carries in its id_token. */
  claims: Record<string, unknown>;
  /** Makes the token endpoint fail with this status. */
  failWith: number | null;
  close(): Promise<void>;
}

/** A loopback OAuth provider: the authorization URL is only recorded; the token endpoint answers. */
export async function startFakeGoogle(): Promise<FakeGoogle> {
  const fake: Omit<FakeGoogle, 'authorizationEndpoint' | 'tokenEndpoint' | 'close'> = { tokenRequests: [], claims: {}, failWith: null };
  const http = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/token') {
        fake.tokenRequests.push(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
        if (fake.failWith) {
          res.writeHead(fake.failWith, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_grant' }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: 'fake-access-token', token_type: 'Bearer', expires_in: 3600, id_token: unsignedJwt(fake.claims) }));
        return;
      }
      res.writeHead(404).end();
    });
  });
  const port = await listen(http);
  return Object.assign(fake, {
    authorizationEndpoint: `http://127.0.0.1:${port}/authorize`,
    tokenEndpoint: `http://127.0.0.1:${port}/token`,
    close: () => closeServer(http),
  });
}

export interface SmtpMessage {
  from: string;
  to: string[];
  data: string;
}

/** A minimal SMTP sink (RFC 5321 happy path, no TLS, no auth): records every message it accepts. */
export async function startSmtpSink(): Promise<{ url: string; messages: SmtpMessage[]; next(): Promise<SmtpMessage>; close(): Promise<void> }> {
  const messages: SmtpMessage[] = [];
  const waiters: ((m: SmtpMessage) => void)[] = [];
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.setEncoding('utf8');
    let buffer = '';
    let inData = false;
    let current: SmtpMessage = { from: '', to: [], data: '' };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 sink.local ESMTP test sink');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end).replace(/\r\n\.\./g, '\r\n.');
          buffer = buffer.slice(end + 5);
          inData = false;
          messages.push(current);
          const w = waiters.shift();
          if (w) w(current);
          current = { from: '', to: [], data: '' };
          reply('250 2.0.0 queued');
          continue;
        }
        const nl = buffer.indexOf('\r\n');
        if (nl < 0) return;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') socket.write('250-sink.local\r\n250 8BITMIME\r\n');
        else if (verb === 'HELO') reply('250 sink.local');
        else if (verb === 'MAIL') {
          current.from = /<([^>]*)>/.exec(line)?.[1] ?? '';
          reply('250 2.1.0 ok');
        } else if (verb === 'RCPT') {
          current.to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
          reply('250 2.1.5 ok');
        } else if (verb === 'DATA') {
          inData = true;
          reply('354 end with <CRLF>.<CRLF>');
        } else if (verb === 'QUIT') {
          reply('221 bye');
          socket.end();
        } else if (verb === 'RSET' || verb === 'NOOP') reply('250 ok');
        else reply('502 5.5.2 not implemented');
      }
    });
  });
  const port = await listen(server);
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    next: () => new Promise((resolve) => waiters.push(resolve)),
    close: async () => {
      for (const s of sockets) s.destroy();
      await closeServer(server);
    },
  };
}

/**
 * A residential provider's gateway speaking HTTP CONNECT on loopback: records each request's
 * credentials (`user:password`) and target; `accept` decides who gets a tunnel (407 otherwise).
 */
export async function startFakeConnectProvider(accept: (auth: string) => boolean = () => true) {
  const seen: Array<{ auth: string; target: string }> = [];
  const server = createHttpServer();
  server.on('connect', (req, sock: Socket) => {
    const auth = Buffer.from((req.headers['proxy-authorization'] ?? '').replace(/^Basic /, ''), 'base64').toString();
    seen.push({ auth, target: req.url ?? '' });
    if (!accept(auth)) return void sock.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
    const [host, port] = (req.url ?? '').split(':');
    const t = connectTcp(Number(port), host, () => {
      sock.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      sock.pipe(t).pipe(sock);
    });
    t.on('error', () => sock.destroy());
    sock.on('error', () => t.destroy());
  });
  const port = await listen(server);
  return { port, seen, close: () => closeServer(server) };
}
