/**
 * Customers' webhooks over HTTP: create (https only, loopback when private targets are allowed,
 * private and metadata hosts refused), list, delete, at most 5; events written with the change and
 * sent by the delivery job to a loopback receiver that checks the signature; retries on the stated
 * schedule, run with a time argument; the delivery log and Resend (at most 10 an hour per webhook).
 * Receivers are isolated: an attempt has one 10 s deadline for the whole exchange, reads no more
 * than the answer's head, and a trickling receiver does not hold up another customer's delivery.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverDueWebhooks, SANDBOX_SIGNATURE_HEADER, signSandboxNotification, startWebhookSender } from '@proxyhub/api';
import { webhooks } from '@proxyhub/db';
import { adminClient, internalClient } from './credits-helpers';
import { signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let server: TestServer;
let receiver: Server;
let hookUrl: string;
const received: Received[] = [];
let answerStatus = 200;

beforeAll(async () => {
  server = await startTestServer();
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(answerStatus).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  receiver.close();
  await server.close();
});

const deliver = (now = new Date()) => deliverDueWebhooks(server.deps.db, server.deps.secrets, { now, allowPrivate: true });

type Created = { success: true; webhook: { id: string; url: string; events: string[] }; secret: string };
type Delivery = {
  id: string;
  eventId: string;
  type: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  attempts: { statusCode: number | null; error: string | null; durationMs: number }[];
};

async function hooked(events: string[]): Promise<{ client: HttpClient; user: { id: string }; email: string; hook: Created }> {
  const { client, user, email } = await signedInUser(server);
  const r = await client.post<Created>('/api/webhooks', { url: hookUrl, events });
  expect(r.status).toBe(201);
  return { client, user, email, hook: r.body };
}

/** The receiver's check: the signature is HMAC-SHA256 of "<t>.<body>" with the secret. */
function verify(r: Received, secret: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers['x-proxyhub-signature']));
  if (!m) return false;
  return createHmac('sha256', secret).update(`${m[1]}.${r.body}`).digest('hex') === m[2];
}

/** The webhook's one delivery was attempted once and refused before any connection. */
async function refusedAtDelivery(client: HttpClient, id: string) {
  const [d] = await deliveries(client, id);
  expect(d).toMatchObject({
    status: 'pending',
    attemptCount: 1,
    attempts: [{ statusCode: null, error: 'URL must not point to a private, loopback or metadata address' }],
  });
}

const deliveries = async (client: HttpClient, id: string) => (await client.get<{ deliveries: Delivery[] }>(`/api/webhooks/${id}/deliveries`)).body.deliveries;

describe('managing webhooks', () => {
  it('creates with the secret shown once, lists without it, deletes; at most 5; names what is wrong', async () => {
    const { client, hook } = await hooked(['payment.credited', 'statement.ready']);
    expect(hook.secret).toMatch(/^whsec_[0-9a-f]{48}$/);
    expect(hook.webhook).toMatchObject({ url: hookUrl, events: ['payment.credited', 'statement.ready'] });
    const list = await client.get<{ webhooks: Record<string, unknown>[] }>('/api/webhooks');
    expect(list.body.webhooks).toEqual([expect.objectContaining({ id: hook.webhook.id, url: hookUrl })]);
    expect(JSON.stringify(list.body)).not.toContain(hook.secret);

    const bad = async (body: unknown) => (await client.post<{ error: string }>('/api/webhooks', body)).body.error;
    expect(await bad({ url: 'ftp://example.com/x', events: ['balance.low'] })).toBe('URL must start with https://');
    expect(await bad({ url: 'http://example.com/x', events: ['balance.low'] })).toBe('URL must start with https://');
    expect(await bad({ url: 'not a url', events: ['balance.low'] })).toBe('URL must be a valid URL');
    expect(await bad({ url: hookUrl, events: [] })).toBe('Choose at least one event');
    expect(await bad({ url: hookUrl, events: ['payment.lost'] })).toMatch(/^Events must be among balance.low, /);

    for (let i = 0; i < 4; i++) expect((await client.post('/api/webhooks', { url: hookUrl, events: ['balance.low'] })).status).toBe(201);
    const sixth = await client.post<{ error: string }>('/api/webhooks', { url: hookUrl, events: ['balance.low'] });
    expect(sixth).toMatchObject({ status: 409, body: { success: false, error: 'You can have at most 5 webhooks' } });

    expect((await client.request('DELETE', `/api/webhooks/${hook.webhook.id}`)).status).toBe(200);
    expect((await client.request('DELETE', `/api/webhooks/${hook.webhook.id}`)).status).toBe(404);
    const other = await signedInUser(server);
    expect((await other.client.get(`/api/webhooks/${list.body.webhooks[0]!.id as string}/deliveries`)).status).toBe(404);
    expect((await server.client().get('/api/webhooks')).status).toBe(401);
  });

  it('refuses private, loopback and metadata hosts, and plain http, where private targets are not allowed', async () => {
    const strict = await startTestServer({ upstreams: { allowPrivate: false } });
    try {
      const { client } = await signedInUser(strict);
      const bad = async (url: string) => (await client.post<{ error: string }>('/api/webhooks', { url, events: ['balance.low'] })).body.error;
      expect(await bad(hookUrl)).toBe('URL must start with https://');
      for (const url of [
        'https://127.0.0.1/x',
        'https://10.0.0.8/x',
        'https://169.254.169.254/latest',
        'https://[::1]/x',
        'https://localhost/x',
        'https://metadata.google.internal/x',
      ]) {
        expect([url, await bad(url)]).toEqual([url, 'URL must not point to a private, loopback or metadata address']);
      }
    } finally {
      await strict.close();
    }
  });
});

describe('events and deliveries', () => {
  it('payment.credited is sent after the payment commits, signed, and logged as delivered', async () => {
    const { client, hook } = await hooked(['payment.credited']);
    const order = (await client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 })).body.invoiceUrl
      .split('/')
      .at(-1)!;
    const body = { order_id: order, payment_id: 'wh1', payment_status: 'finished' as const, price_amount: 10.8, price_currency: 'usd' as const };
    const paid = await server
      .client({ origin: null })
      .post('/webhooks/sandbox', body, { [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(server.config.appSecret, body) });
    expect(paid.status).toBe(200);
    const pending = await deliveries(client, hook.webhook.id);
    expect(pending).toEqual([expect.objectContaining({ type: 'payment.credited', status: 'pending', attemptCount: 0 })]);

    received.length = 0;
    await deliver();
    expect(received).toHaveLength(1);
    const got = received[0]!;
    expect(verify(got, hook.secret)).toBe(true);
    expect(verify(got, 'whsec_wrong')).toBe(false);
    expect(got.headers['content-type']).toBe('application/json');
    const event = JSON.parse(got.body) as { id: string; type: string; createdAt: string; data: Record<string, unknown> };
    expect(event).toEqual({
      id: pending[0]!.eventId,
      type: 'payment.credited',
      createdAt: expect.any(String),
      data: expect.objectContaining({ paymentId: order, gbAmount: 12, priceCents: 1080 }),
    });
    const [done] = await deliveries(client, hook.webhook.id);
    expect(done).toMatchObject({ status: 'delivered', attemptCount: 1, nextAttemptAt: null, attempts: [{ statusCode: 200, error: null }] });
    // Nothing is sent twice.
    await deliver();
    expect(received).toHaveLength(1);
  });

  it('account.suspended is sent when an admin suspends the account', async () => {
    const { user, hook } = await hooked(['account.suspended']);
    const admin = await adminClient(server);
    expect((await admin.post(`/admin/users/${user.id}/suspend`, { reason: 'abuse report' })).status).toBe(200);
    received.length = 0;
    await deliver();
    expect(received).toHaveLength(1);
    expect(verify(received[0]!, hook.secret)).toBe(true);
    expect(JSON.parse(received[0]!.body)).toMatchObject({ type: 'account.suspended', data: { userId: user.id, suspendedAt: expect.any(String) } });
  });

  it('retries after 10 s, 1 min, 5 min, 30 min, 2 h, then every 6 h for 24 h, then gives up', async () => {
    const { client, hook } = await hooked(['balance.low']);
    expect((await client.request('PUT', '/api/alerts', { lowBalanceGB: 1 })).status).toBe(200);
    answerStatus = 500;
    received.length = 0;
    try {
      let now = new Date(Date.now() + 1000);
      const waits = [10, 60, 300, 1800, 7200, 21600, 21600, 21600, 21600];
      await deliver(now);
      for (const [i, wait] of waits.entries()) {
        const [d] = await deliveries(client, hook.webhook.id);
        expect(d).toMatchObject({ status: 'pending', attemptCount: i + 1 });
        expect(new Date(d!.nextAttemptAt!).getTime() - now.getTime()).toBe(wait * 1000);
        // Not before it is due.
        await deliver(new Date(now.getTime() + wait * 1000 - 1000));
        expect(received).toHaveLength(i + 1);
        now = new Date(now.getTime() + wait * 1000);
        await deliver(now);
      }
      expect(received).toHaveLength(10);
      const [failed] = await deliveries(client, hook.webhook.id);
      expect(failed).toMatchObject({ status: 'failed', attemptCount: 10, nextAttemptAt: null });
      expect(failed!.attempts.every((a) => a.statusCode === 500 && a.error === 'HTTP 500')).toBe(true);
      await deliver(new Date(now.getTime() + 86_400_000));
      expect(received).toHaveLength(10);
    } finally {
      answerStatus = 200;
    }
  });

  it('Resend from the delivery log queues a new delivery of the same event', async () => {
    const { client, hook } = await hooked(['balance.low']);
    // A new user has nothing left: setting a threshold is a fall to "out", one balance.low event.
    expect((await client.request('PUT', '/api/alerts', { lowBalanceGB: 1 })).status).toBe(200);
    received.length = 0;
    await deliver();
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]!.body)).toMatchObject({ type: 'balance.low', data: { state: 'out', remainingBytes: '0' } });
    const [first] = await deliveries(client, hook.webhook.id);
    const r = await client.post<{ delivery: Delivery }>(`/api/webhooks/${hook.webhook.id}/deliveries/${first!.id}/resend`, {});
    expect(r).toMatchObject({ status: 200, body: { success: true, delivery: { status: 'pending', eventId: first!.eventId } } });
    await deliver();
    expect(received.map((x) => JSON.parse(x.body).id)).toEqual([first!.eventId, first!.eventId]);
    expect((await client.post(`/api/webhooks/${hook.webhook.id}/deliveries/00000000-0000-4000-8000-000000000000/resend`, {})).status).toBe(404);
  });

  it('proxy_account.limit_reached once when a sub-account is refused a lease at its cap', async () => {
    const { client, user, hook } = await hooked(['proxy_account.limit_reached']);
    const admin = await adminClient(server);
    expect((await admin.post(`/admin/users/${user.id}/adjust`, { deltaGB: 1, reason: 'test credit' })).status).toBe(200);
    const created = await client.post<{ account: { proxyUserId: string; proxyPassword: string } }>('/api/proxy-accounts', { name: 'capped', capGB: 0.01 });
    expect(created.status).toBe(201);
    const gw = internalClient(server).gateway;
    const { account } = await gw.authorize.mutate({ proxyUserId: created.body.account.proxyUserId, password: created.body.account.proxyPassword });
    if (!account.ok) throw new Error(account.message);
    const first = await gw.reserveLease.mutate({ gatewayId: 'gw-hooks', proxyAccountId: account.proxyAccountId, bytes: 50_000_000 });
    expect(first.outcome).toBe('granted');
    for (let i = 0; i < 3; i++)
      expect((await gw.reserveLease.mutate({ gatewayId: 'gw-hooks', proxyAccountId: account.proxyAccountId, bytes: 1_000_000 })).outcome).toBe('cap_reached');
    const log = await deliveries(client, hook.webhook.id);
    expect(log).toHaveLength(1);
    received.length = 0;
    await deliver();
    expect(JSON.parse(received[0]!.body)).toMatchObject({
      type: 'proxy_account.limit_reached',
      data: { proxyAccountId: account.proxyAccountId, name: 'capped', limit: 'cap' },
    });
  });

  it('a delivery is refused at send time when its host is private and private targets are not allowed', async () => {
    const { client } = await signedInUser(server);
    const https = hookUrl.replace('http:', 'https:');
    const hook = (await client.post<Created>('/api/webhooks', { url: https, events: ['balance.low'] })).body;
    expect((await client.request('PUT', '/api/alerts', { lowBalanceGB: 1 })).status).toBe(200);
    received.length = 0;
    await deliverDueWebhooks(server.deps.db, server.deps.secrets, { now: new Date(Date.now() + 1000), allowPrivate: false });
    expect(received).toHaveLength(0);
    await refusedAtDelivery(client, hook.webhook.id);
  });
});

describe('private targets', () => {
  it('refuses private and metadata hosts even where private targets are allowed (loopback only is excepted there)', async () => {
    const { client } = await signedInUser(server);
    const post = (url: string) => client.post<{ error: string }>('/api/webhooks', { url, events: ['balance.low'] });
    for (const url of [
      'https://10.1.2.3/hook',
      'https://0x0a010203/hook',
      'https://192.168.1.1/x',
      'https://172.16.0.1/x',
      'https://100.64.0.1/x',
      'https://169.254.169.254/latest',
      'https://[fd00::1]/x',
      'https://[fe80::1]/x',
      'https://[::ffff:10.1.2.3]/x',
      'https://metadata.google.internal/x',
    ]) {
      const r = await post(url);
      expect([url, r.status, r.body.error]).toEqual([url, 400, 'URL must not point to a private, loopback or metadata address']);
    }
    expect((await post('https://127.0.0.1/x')).status).toBe(201);
    expect((await post('https://[::1]/x')).status).toBe(201);
    expect((await client.get<{ webhooks: unknown[] }>('/api/webhooks')).body.webhooks).toHaveLength(2);
  });

  it('refuses a private address at delivery too, where private targets are allowed', async () => {
    const { client, hook } = await hooked(['balance.low']);
    // No API stores such a URL any more; one saved before this rule is what delivery must catch.
    await server.deps.db.update(webhooks).set({ url: 'https://10.1.2.3/hook' }).where(eq(webhooks.id, hook.webhook.id));
    expect((await client.request('PUT', '/api/alerts', { lowBalanceGB: 1 })).status).toBe(200);
    await deliver();
    await refusedAtDelivery(client, hook.webhook.id);
  });
});

describe('resend limit', () => {
  it('allows 10 resends per webhook per hour, then answers 429, under concurrent presses too', async () => {
    const { client, hook } = await hooked(['balance.low']);
    expect((await client.request('PUT', '/api/alerts', { lowBalanceGB: 1 })).status).toBe(200);
    const [first] = await deliveries(client, hook.webhook.id);
    const presses = await Promise.all(
      Array.from({ length: 14 }, () => client.post<{ error?: string }>(`/api/webhooks/${hook.webhook.id}/deliveries/${first!.id}/resend`, {})),
    );
    expect(presses.filter((r) => r.status === 200)).toHaveLength(10);
    const refused = presses.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(4);
    for (const r of refused)
      expect(r).toMatchObject({ status: 429, body: { success: false, error: 'At most 10 resends per webhook per hour: try again later' } });
    expect(await deliveries(client, hook.webhook.id)).toHaveLength(11);
  });
});

describe('receivers are isolated', () => {
  const servers: (Server | TcpServer)[] = [];
  const sockets = new Set<Socket>();
  afterAll(() => {
    for (const s of sockets) s.destroy();
    for (const s of servers) s.close();
  });

  /** A raw receiver: `answer` writes whatever it likes once the request has arrived. */
  async function rawReceiver(answer: (socket: Socket) => void): Promise<{ url: string; requests: number[] }> {
    const requests: number[] = [];
    const tcp = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
      let seen = '';
      socket.on('data', (d: Buffer) => {
        seen += d.toString('latin1');
        const head = seen.indexOf('\r\n\r\n');
        const length = Number(/content-length: (\d+)/i.exec(seen)?.[1] ?? -1);
        if (head >= 0 && seen.length >= head + 4 + length && requests.length === 0) {
          requests.push(Date.now());
          answer(socket);
        }
      });
    });
    servers.push(tcp);
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(tcp.address() as AddressInfo).port}/hook`, requests };
  }

  /** Answers its status line a byte every 2 s: the exchange is never idle for long, and never ends. */
  const trickle = (socket: Socket) => {
    const line = 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n';
    let i = 0;
    const timer = setInterval(() => (i < line.length && !socket.destroyed ? socket.write(line[i++]!) : clearInterval(timer)), 2000);
    socket.on('close', () => clearInterval(timer));
  };

  async function hookedTo(url: string) {
    const { client } = await signedInUser(server);
    const hook = (await client.post<Created>('/api/webhooks', { url, events: ['balance.low'] })).body;
    return { client, hook };
  }
  const waitUntil = async (what: string, ok: () => boolean | Promise<boolean>, ms: number) => {
    const end = Date.now() + ms;
    while (!(await ok())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('a trickling receiver does not delay another customer’s delivery, and its attempt ends at 10 s', async () => {
    const slow = await rawReceiver(trickle);
    const fast = await rawReceiver((socket) => socket.end('HTTP/1.1 204 No Content\r\n\r\n'));
    const a = await hookedTo(slow.url);
    const b = await hookedTo(fast.url);
    const sender = startWebhookSender(server.deps.db, server.deps.secrets, { allowPrivate: true }, (err) => {
      throw err;
    });
    try {
      expect((await a.client.request('PUT', '/api/alerts', { lowBalanceGB: 1 })).status).toBe(200);
      await waitUntil('the slow receiver’s request', () => slow.requests.length === 1, 5000);
      const queuedAt = Date.now();
      expect((await b.client.request('PUT', '/api/alerts', { lowBalanceGB: 1 })).status).toBe(200);
      await waitUntil('the fast receiver’s request', () => fast.requests.length === 1, 15_000);
      const tookMs = fast.requests[0]! - queuedAt;
      console.log(`fast receiver served ${tookMs} ms after its event while the slow one trickled`);
      expect(tookMs).toBeLessThan(3000);
      await waitUntil('the fast delivery logged', async () => (await deliveries(b.client, b.hook.webhook.id))[0]?.status === 'delivered', 5000);

      await waitUntil('the slow attempt logged', async () => (await deliveries(a.client, a.hook.webhook.id))[0]?.attemptCount === 1, 15_000);
      const [d] = await deliveries(a.client, a.hook.webhook.id);
      expect(d).toMatchObject({ status: 'pending', attempts: [{ statusCode: null, error: 'No answer within 10 s' }] });
      const took = d!.attempts[0]!.durationMs;
      // The 10 s timer runs on the event loop's cached clock, the duration on the wall clock: one can
      // read a millisecond short of the other (CI saw 9999).
      expect(took).toBeGreaterThanOrEqual(9_990);
      expect(took).toBeLessThan(11_500);
      // Its retry is not for the tests after this one.
      expect((await a.client.request('DELETE', `/api/webhooks/${a.hook.webhook.id}`)).status).toBe(200);
    } finally {
      await sender.stop();
    }
  }, 40_000);

  it('reads the status line only: an endless body or an oversized head does not hold an attempt', async () => {
    const endlessBody = await rawReceiver((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n');
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write(chunk)), 5);
      socket.on('close', () => clearInterval(timer));
    });
    const endlessHead = await rawReceiver((socket) => {
      socket.write('HTTP/1.1 200 OK\r\n');
      const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write(`X-Pad: ${'y'.repeat(1000)}\r\n`)), 5);
      socket.on('close', () => clearInterval(timer));
    });
    const body = await hookedTo(endlessBody.url);
    const head = await hookedTo(endlessHead.url);
    for (const h of [body, head]) expect((await h.client.request('PUT', '/api/alerts', { lowBalanceGB: 1 })).status).toBe(200);
    await deliver();
    const [delivered] = await deliveries(body.client, body.hook.webhook.id);
    expect(delivered).toMatchObject({ status: 'delivered', attempts: [{ statusCode: 200, error: null }] });
    const [refused] = await deliveries(head.client, head.hook.webhook.id);
    expect(refused).toMatchObject({ status: 'pending', attempts: [{ statusCode: null }] });
    expect(refused!.attempts[0]!.error).toMatch(/header/i);
    for (const d of [delivered!, refused!]) expect(d.attempts[0]!.durationMs).toBeLessThan(3000);
  }, 20_000);
});
