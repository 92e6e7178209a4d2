// No request line or header earns a 5xx: an empty Host, the methods fetch forbids and methods no
// server knows are answered 4xx on every route prefix, and nothing is logged as an error.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRoutes } from '../src/app';
import { startTestServer, type TestServer } from './helpers';

/** Sends raw bytes and reads the whole answer (the server closes: Connection: close). */
function exchange(port: number, text: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (data += d));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(data)?.[1] ?? 0);
      resolve({ status, body: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
  });
}

const request = (port: number, method: string, path: string, host: string | null) =>
  exchange(
    port,
    `${method} ${path} HTTP/1.1\r\n${host === null ? '' : `Host:${host}\r\n`}Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
  );

describe('request lines and headers no route serves', () => {
  let server: TestServer;
  let port: number;
  const lines: string[] = [];
  let paths: string[];
  beforeAll(async () => {
    server = await startTestServer({ logLevel: 'info', logDestination: { write: (l: string) => void lines.push(l) } });
    port = Number(new URL(server.url).port);
    // One concrete path per route (parameters filled in), tRPC queries, mutations and batches, and a path nobody serves.
    const routes = new Set(listRoutes(server.app).map((r) => r.url.replace(/:[A-Za-z]+/g, 'x').replace('*', 'x')));
    paths = [...routes, '/trpc/auth.me', '/trpc/auth.login', '/trpc/auth.me,auth.signInOptions?batch=1', '/no-such-page'];
  });
  afterAll(() => server.close());

  it('an empty Host is 400 { success: false, error } on every route prefix, whatever the method', async () => {
    const wrong: string[] = [];
    for (const path of paths) {
      for (const method of ['GET', 'POST']) {
        for (const host of ['', ' ']) {
          const res = await request(port, method, path, host);
          if (res.status !== 400 || !res.body.includes('"success":false')) wrong.push(`${method} ${path} ${JSON.stringify(host)}: ${res.status} ${res.body}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(JSON.parse((await request(port, 'POST', '/trpc/auth.login', '')).body)).toEqual({
      success: false,
      error: 'Invalid Host header',
      code: 'INVALID_HOST_HEADER',
    });
  });

  it('TRACE and CONNECT are 405, TRACK, FOO and no Host at all 400, other unknown methods 4xx: on every route prefix', async () => {
    const wrong: string[] = [];
    for (const path of paths) {
      const expected: Array<[string, string | null, number | null]> = [
        ['TRACE', '127.0.0.1', 405],
        ['TRACE', '', 405],
        ['CONNECT', '127.0.0.1', 405],
        ['TRACK', '127.0.0.1', 400],
        ['FOO', '127.0.0.1', 400],
        ['GET', null, 400],
        ['PROPFIND', '127.0.0.1', null],
        ['QUERY', '127.0.0.1', null],
      ];
      for (const [method, host, status] of expected) {
        const res = await request(port, method, path, host);
        const ok = status === null ? res.status >= 400 && res.status < 500 : res.status === status;
        if (!ok) wrong.push(`${method} ${path} ${JSON.stringify(host)}: ${res.status}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(JSON.parse((await request(port, 'TRACE', '/trpc/auth.me', '127.0.0.1')).body)).toEqual({
      success: false,
      error: 'Method TRACE is not allowed',
      code: 'METHOD_NOT_ALLOWED',
    });
    expect(JSON.parse((await request(port, 'CONNECT', '127.0.0.1:443', '127.0.0.1')).body)).toEqual({
      success: false,
      error: 'Method CONNECT is not allowed',
      code: 'METHOD_CONNECT_NOT_ALLOWED',
    });
  });

  it('logs no error and no stack trace for any of them', () => {
    const errors = lines.filter((l) => /"level":(50|60)/.test(l) || /stack/i.test(l));
    expect(errors).toEqual([]);
    // The log was captured at all (requests are logged at info).
    expect(lines.length).toBeGreaterThan(0);
  });
});
