import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { STRONG_PASSWORD, startTestServer, uniqueEmail } from './helpers';

describe('graceful shutdown', () => {
  it('waits for a handler whose client hung up before closing the database', async () => {
    const server = await startTestServer();
    const email = uniqueEmail('shutdown');
    // Learn when the register handler is running: it starts by counting a rate-limit attempt.
    const limiter = server.deps.rateLimiter;
    let entered!: () => void;
    const handlerRunning = new Promise<void>((resolve) => (entered = resolve));
    server.deps.rateLimiter = {
      ...limiter,
      consume: (name, key) => {
        if (name === 'register') entered();
        return limiter.consume(name, key);
      },
    };

    const body = JSON.stringify({ email, password: STRONG_PASSWORD, name: 'Left Early' });
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`POST /auth/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    await handlerRunning;
    socket.destroy();
    await server.close();

    // The handler ran to the end on an open database: the account exists and its mail was sent.
    const mails = server.mails(email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('Verify your email');
  });
});
