/**
 * Half-sent requests: a client that opens a connection and sends part of a request head, or a head
 * and part of its body, is closed 15 s after it started (as the gateway closes a stalled handshake),
 * instead of holding a socket for minutes. Through a real socket to the listening server.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** Writes `bytes`, then waits for the server to close; the seconds it took and what it answered. */
function sendAndWaitForClose(bytes: string): Promise<{ seconds: number; answer: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve({ seconds: (Date.now() - started) / 1000, answer: Buffer.concat(chunks).toString('latin1') }));
    // A bound of our own, so a server that never closes fails the test rather than hanging it.
    setTimeout(() => {
      socket.destroy();
    }, 40_000).unref();
  });
}

describe('requests that do not arrive', () => {
  it('a head, or a body, not complete within 15 s is answered 408 and closed; a whole request is answered as ever', async () => {
    const [head, body] = await Promise.all([
      sendAndWaitForClose('GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: '),
      sendAndWaitForClose('POST /auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"email":'),
    ]);
    for (const r of [head, body]) {
      expect(r.seconds).toBeGreaterThan(14);
      expect(r.seconds).toBeLessThan(18);
    }
    expect(body.answer).toMatch(/^HTTP\/1\.1 408 /);
    const whole = await fetch(`${server.url}/health`);
    expect(whole.status).toBe(200);
  }, 60_000);
});
