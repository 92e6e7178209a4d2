/**
 * The Telegram bot against a fake Bot API on loopback: the webhook's secret, linking, every command
 * linked and unlinked, notifications after the changes commit, the broadcast, a 429 retried, the
 * status board's /status with its subscription, and every reply in each language (a linked chat in
 * its user's, an unlinked one in what Telegram says of the sender's app).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateIncidents } from '@proxyhub/api';
import { LOCALES, type Locale } from '@proxyhub/core/i18n';
import { translatorFor } from '@proxyhub/core/i18n/server';
import { auditLog, promotions, qualityProbes, telegramChats, telegramLinkCodes, telegramOutbox } from '@proxyhub/db';
import { STATUS_SUBSCRIBED, STATUS_UNSUBSCRIBED, STATUS_USAGE } from '../src/telegram/commands';
import { ADMIN_USERNAME, adminClient } from './credits-helpers';
import { BOT_TOKEN, BOT_USERNAME, FakeTelegram, textUpdate, WEBHOOK_SECRET } from './helpers';
import { internalClient, signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

const SECRET_HEADER = 'x-telegram-bot-api-secret-token';
let fake: FakeTelegram;
let server: TestServer;
let admin: HttpClient;
let nextChat = 1000;
let adminChat = 0;

beforeAll(async () => {
  fake = await new FakeTelegram().start();
  server = await startTestServer({
    publicUrl: 'https://shop.example',
    defaultUpstream: true,
    // The fake Bot API has no per-chat limit: no second between replies to one chat.
    telegram: { token: BOT_TOKEN, webhookSecret: WEBHOOK_SECRET, apiRoot: fake.url, outboxPollMs: 200, chatSpacingMs: 0 },
  });
  admin = await adminClient(server);
}, 30_000);
afterAll(async () => {
  await server.close();
  await fake.close();
});

const deliver = (update: unknown, headers: Record<string, string> = { [SECRET_HEADER]: WEBHOOK_SECRET }) =>
  server.client({ origin: null }).post('/telegram/webhook', update, headers);

/** Sends a text from a chat and answers what the bot replied to it. */
async function say(chatId: number, text: string, languageCode?: string): Promise<string> {
  const before = fake.sent(chatId).length;
  const r = await deliver(textUpdate(chatId, text, { type: 'private', ...(languageCode ? { languageCode } : {}) }));
  expect(r.status).toBe(200);
  return fake.sent(chatId).slice(before).join('\n');
}

async function waitFor<T>(read: () => T | undefined, what: string, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = read();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A user whose chat is linked through the Settings path. */
async function linkedUser() {
  const u = await signedInUser(server);
  const chatId = nextChat++;
  const link = await u.client.post<{ code: string; url: string }>('/api/telegram/link');
  expect(link.status).toBe(200);
  expect(await say(chatId, `/start ${link.body.code}`)).toContain(`Linked to ${u.email}`);
  return { ...u, chatId };
}

async function mintCode(gb: number): Promise<string> {
  const r = await admin.post<{ codes: { code: string }[] }>('/admin/codes/create', { creditsGB: gb, quantity: 1, expiresAt: null });
  expect(r.status).toBe(200);
  return r.body.codes[0]!.code;
}

describe('start and webhook', () => {
  it('calls getMe and, with an https public URL, setWebhook with the secret', () => {
    expect(fake.calledWith('getMe')).toHaveLength(1);
    expect(fake.calledWith('setWebhook').map((c) => c.body)).toEqual([
      expect.objectContaining({ url: 'https://shop.example/telegram/webhook', secret_token: WEBHOOK_SECRET }),
    ]);
  });

  it('refuses updates without the secret header, or with a wrong one, and does nothing', async () => {
    const chatId = nextChat++;
    const calls = fake.calls.length;
    expect((await deliver(textUpdate(chatId, '/help'), {})).status).toBe(401);
    expect((await deliver(textUpdate(chatId, '/help'), { [SECRET_HEADER]: 'wrong' })).status).toBe(401);
    expect(fake.calls.length).toBe(calls);
    expect(await say(chatId, '/help')).toContain('/balance');
  });

  it('without a token there is no bot and no route', async () => {
    const plain = await startTestServer();
    try {
      expect(plain.telegram).toBeNull();
      const r = await plain.client({ origin: null }).post('/telegram/webhook', textUpdate(1, '/help'), { [SECRET_HEADER]: WEBHOOK_SECRET });
      expect(r.status).toBe(404);
      const { client } = await signedInUser(plain);
      const link = await client.post('/api/telegram/link');
      expect(link).toMatchObject({ status: 404, body: { success: false, error: 'The Telegram bot is not configured on this server' } });
    } finally {
      await plain.close();
    }
  });

  it('an http public URL sets no webhook', async () => {
    const before = fake.calledWith('setWebhook').length;
    const other = await startTestServer({ telegram: { token: BOT_TOKEN, webhookSecret: WEBHOOK_SECRET, apiRoot: fake.url } });
    try {
      expect(other.telegram).not.toBeNull();
      expect(fake.calledWith('setWebhook')).toHaveLength(before);
    } finally {
      await other.close();
    }
  });
});

describe('linking', () => {
  it('links a chat with a one-time code; used, unknown and expired codes are refused', async () => {
    const { client, email, user } = await signedInUser(server);
    const chatId = nextChat++;
    const link = await client.post<{ code: string; url: string }>('/api/telegram/link');
    expect(link.status).toBe(200);
    expect(link.body.url).toBe(`https://t.me/${BOT_USERNAME}?start=${link.body.code}`);
    // Stored hashed, valid 10 minutes.
    const [row] = await server.deps.db.select().from(telegramLinkCodes).where(eq(telegramLinkCodes.userId, user.id));
    expect(row!.codeHash).not.toContain(link.body.code);
    expect(row!.expiresAt.getTime() - row!.createdAt.getTime()).toBeCloseTo(10 * 60 * 1000, -4);

    expect(await say(chatId, `/start ${link.body.code}`)).toContain(`Linked to ${email}`);
    expect((await client.get('/api/telegram/link')).body).toMatchObject({ enabled: true, botUsername: BOT_USERNAME, chat: { chatId } });
    expect(await say(nextChat++, `/start ${link.body.code}`)).toContain('link code is invalid or expired');
    expect(await say(chatId, '/start nope-not-a-code')).toContain('link code is invalid or expired');

    const expired = await client.post<{ code: string }>('/api/telegram/link');
    await server.deps.db
      .update(telegramLinkCodes)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(telegramLinkCodes.userId, user.id));
    expect(await say(nextChat++, `/start ${expired.body.code}`)).toContain('link code is invalid or expired');
    expect(await server.deps.db.select().from(telegramChats).where(eq(telegramChats.userId, user.id))).toHaveLength(1);

    expect((await server.client().post('/api/telegram/link')).status).toBe(401);
  });

  it('links private chats only: a group is told to link in a private chat, and the code stays usable', async () => {
    const { client, email, user } = await signedInUser(server);
    const code = (await client.post<{ code: string }>('/api/telegram/link')).body.code;
    for (const type of ['group', 'supergroup'] as const) {
      const group = -1_000_000 - nextChat++;
      const before = fake.sent(group).length;
      expect((await deliver(textUpdate(group, `/start ${code}`, { type, fromId: 77 }))).status).toBe(200);
      expect(fake.sent(group).slice(before)).toEqual(['Link your account in a private chat with the bot']);
      // Nothing a member types there acts as the owner.
      for (const text of ['/proxies us', '/balance', '/buy 12', '/redeem ABCDEFGH']) {
        const n = fake.sent(group).length;
        await deliver(textUpdate(group, text, { type, fromId: 77 }));
        expect(fake.sent(group).slice(n).join('\n')).not.toMatch(/Remaining|invoice|:\d+:/i);
      }
    }
    expect(await server.deps.db.select().from(telegramChats).where(eq(telegramChats.userId, user.id))).toHaveLength(0);
    expect(await say(nextChat++, `/start ${code}`)).toContain(`Linked to ${email}`);
  });

  it('a code links one chat even when sent twice at once', async () => {
    const { client } = await signedInUser(server);
    const code = (await client.post<{ code: string }>('/api/telegram/link')).body.code;
    const [a, b] = [nextChat++, nextChat++];
    const replies = await Promise.all([say(a, `/start ${code}`), say(b, `/start ${code}`)]);
    expect(replies.filter((r) => r.includes('Linked to'))).toHaveLength(1);
    expect(replies.filter((r) => r.includes('link code is invalid or expired'))).toHaveLength(1);
  });

  it('one chat, one account: linking again moves it; unlinking ends it', async () => {
    const a = await linkedUser();
    const b = await signedInUser(server);
    const code = (await b.client.post<{ code: string }>('/api/telegram/link')).body.code;
    expect(await say(a.chatId, `/start ${code}`)).toContain(`Linked to ${b.email}`);
    expect((await a.client.get('/api/telegram/link')).body).toMatchObject({ chat: null });
    expect((await b.client.get('/api/telegram/link')).body).toMatchObject({ chat: { chatId: a.chatId } });
    // The same account from another chat: the first chat is no longer linked.
    const code2 = (await b.client.post<{ code: string }>('/api/telegram/link')).body.code;
    const other = nextChat++;
    expect(await say(other, `/start ${code2}`)).toContain(`Linked to ${b.email}`);
    expect(await say(a.chatId, '/balance')).toContain('/start');

    expect(await b.client.request('DELETE', '/api/telegram/link')).toMatchObject({ status: 200, body: { success: true, unlinked: true } });
    expect(await say(other, '/balance')).toContain('/start');
  });

  it('an admin links their chat from the admin panel', async () => {
    const chatId = nextChat++;
    const r = await admin.post<{ code: string; url: string }>('/admin/telegram/link');
    expect(r.status).toBe(200);
    expect(r.body.url).toBe(`https://t.me/${BOT_USERNAME}?start=${r.body.code}`);
    expect(await say(chatId, `/start ${r.body.code}`)).toContain(`Linked to ${ADMIN_USERNAME}`);
    expect((await admin.get('/admin/telegram/link')).body).toMatchObject({ chat: { chatId } });
    expect(await say(chatId, '/balance')).toContain('admin account');
    expect((await server.client().post('/admin/telegram/link')).status).toBe(401);
    adminChat = chatId;
  });
});

describe('giveaway', () => {
  it('an admin chat creates a credit promotion (campaign telegram, once per user), audited; linked customers claim it with /redeem, concurrently, COUNT times in all', async () => {
    expect(adminChat).toBeGreaterThan(0);
    expect(await say(adminChat, '/giveaway 1')).toContain('Usage: /giveaway GB COUNT');
    expect(await say(adminChat, '/giveaway 0 5')).toContain('Credits must be at least 0.1 GB');
    const created = await say(adminChat, '/giveaway 0.5 3');
    const code = /Giveaway created: (\S+)/.exec(created)![1]!;
    expect(created).toContain(`0.5 GB each for the first 3 people. Claim it with /redeem ${code}`);
    const [promo] = await server.deps.db.select().from(promotions).where(eq(promotions.code, code));
    expect(promo).toMatchObject({ kind: 'credit', creditsBytes: 1n << 29n, maxRedemptions: 3, maxPerUser: 1, campaign: 'telegram' });
    const audit = await server.deps.db.select().from(auditLog).where(eq(auditLog.action, 'admin.createPromotion'));
    expect(audit.map((a) => a.actor)).toContain(`admin:${ADMIN_USERNAME}`);

    // Five customers at once: three get 0.5 GB (512 MB), two are told it is used up; nobody twice.
    const users = await Promise.all([1, 2, 3, 4, 5].map(() => linkedUser()));
    const replies = await Promise.all(users.map((u) => say(u.chatId, `/redeem ${code}`)));
    expect(replies.filter((r) => r.includes('512 MB')).length).toBe(3);
    const balances = await Promise.all(users.map((u) => say(u.chatId, '/balance')));
    expect(balances.filter((b) => b.includes('Remaining: 0.50 GB')).length).toBe(3);
    const again = users[replies.findIndex((r) => r.includes('512 MB'))]!;
    expect(await say(again.chatId, `/redeem ${code}`)).not.toContain('512 MB');
  });
});

describe('commands', () => {
  it('an unlinked chat is told how to link, for every command but /help', async () => {
    const chatId = nextChat++;
    for (const cmd of ['/balance', '/redeem ABC', '/buy 12', '/proxies US', '/rotate x_US_30_ABCDEFGH', '/giveaway 1 2', '/start']) {
      expect(await say(chatId, cmd), cmd).toMatch(/not linked.*\/start/s);
    }
    const help = await say(chatId, '/help');
    for (const cmd of ['/balance', '/redeem', '/buy', '/proxies', '/rotate', '/help']) expect(help).toContain(cmd);
    expect(await say(chatId, '/nonsense')).toContain('/proxies');
  });

  it('/balance and /redeem as the dashboard and the Top Up page', async () => {
    const u = await linkedUser();
    expect(await say(u.chatId, '/balance')).toBe('Remaining: 0.00 GB\nUsed: 0.00 GB');
    const code = await mintCode(1);
    expect(await say(u.chatId, `/redeem ${code.toLowerCase()}`)).toContain('Successfully redeemed 1024 MB');
    expect(await say(u.chatId, '/balance')).toBe('Remaining: 1.00 GB\nUsed: 0.00 GB');
    // The web's own errors.
    expect(await say(u.chatId, `/redeem ${code}`)).toBe((await u.client.post('/auth/redeem-code', { code })).body.error);
    expect(await say(u.chatId, '/redeem NOSUCHCODE')).toBe((await u.client.post('/auth/redeem-code', { code: 'NOSUCHCODE' })).body.error);
    expect(await say(u.chatId, '/redeem')).toContain('Usage: /redeem CODE');
  });

  it('/buy N answers the invoice URL, with the Top Up page rules', async () => {
    const u = await linkedUser();
    const reply = await say(u.chatId, '/buy 12');
    expect(reply).toContain('Payment created');
    expect(reply).toMatch(/https:\/\/shop\.example\/sandbox\/pay\/[0-9a-f-]{36}/);
    expect(await say(u.chatId, '/buy 5')).toBe('Minimum order is 12GB ($10)');
    expect(await say(u.chatId, '/buy 1.5')).toBe('GB amount must be a whole number');
  });

  it('/proxies COUNTRY [N]: lines in the default format, sticky 60 minutes', async () => {
    const u = await linkedUser();
    const ten = (await say(u.chatId, '/proxies us')).split('\n');
    expect(ten).toHaveLength(10);
    for (const line of ten) {
      const [host, port, username, password] = line.split(':');
      expect(host).toBe('shop.example');
      expect(port).toBe('3001');
      // The generator's sticky username: account, country, 60 minutes, a session id.
      expect(username).toMatch(new RegExp(`^${u.user.proxyUserId}_US_60_[A-Z0-9]+$`));
      expect(password).toBe(u.user.proxyPassword);
    }
    expect((await say(u.chatId, '/proxies US 3')).split('\n')).toHaveLength(3);
    expect(await say(u.chatId, '/proxies US 101')).toContain('from 1 to 100');
    expect(await say(u.chatId, '/proxies ZZ')).toContain('Unknown country: ZZ');
    // 100 lines pass Telegram's 4,096 characters: several messages, every line whole.
    const hundred = fake.sent(u.chatId).length;
    await say(u.chatId, '/proxies US 100');
    const parts = fake.sent(u.chatId).slice(hundred);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((p) => p.length <= 4096)).toBe(true);
    expect(parts.join('\n').split('\n')).toHaveLength(100);
  }, 30_000);

  it("/rotate LINE: a new IP for one of your sticky lines, with the web's refusals", async () => {
    const u = await linkedUser();
    const line = (await say(u.chatId, '/proxies US 1')).trim();
    const username = line.split(':')[2]!;
    expect(await say(u.chatId, `/rotate ${line}`)).toBe(
      `New IP for ${username}: every gateway gives it a new exit within 5 seconds, and its open connections are closed.`,
    );
    // The counter the gateways read moved, as a rotation from the web moves it.
    const answer = await internalClient(server).gateway.authorize.mutate({ proxyUserId: u.user.proxyUserId, password: u.user.proxyPassword });
    expect(answer.account).toMatchObject({ ok: true, rotations: [{ token: username.split('_')[3], count: 1 }] });
    expect(await say(u.chatId, `/rotate ${username}`)).toContain(`New IP for ${username}`);

    expect(await say(u.chatId, '/rotate')).toContain('Usage: /rotate LINE');
    expect(await say(u.chatId, `/rotate ${username.replace('_60_', '_0_')}`)).toBe('Rotating lines get a new IP on every connection');
    const other = await signedInUser(server);
    expect(await say(u.chatId, `/rotate ${other.user.proxyUserId}_US_60_ABCDEFGH`)).toBe(
      `Not one of your proxy lines: ${other.user.proxyUserId} is not your proxy user ID or one of your proxy accounts`,
    );
    expect(await say(u.chatId, '/rotate nonsense')).toBe('Paste a proxy line or username from the generator');
  });

  it('a suspended account gets the web message', async () => {
    const u = await linkedUser();
    expect((await admin.post(`/admin/users/${u.user.id}/suspend`, { reason: 'test' })).status).toBe(200);
    expect(await say(u.chatId, '/balance')).toMatch(/suspended|disabled/i);
    await admin.post(`/admin/users/${u.user.id}/unsuspend`, { reason: 'test' });
  });

  it('/giveaway in a customer chat is refused', async () => {
    const u = await linkedUser();
    expect(await say(u.chatId, '/giveaway 1 5')).toContain('Only a chat linked to an admin account');
  });
});

describe('notifications', () => {
  it('a sandbox payment credited, once, after it commits', async () => {
    const u = await linkedUser();
    const invoice = await say(u.chatId, '/buy 12');
    const path = new URL(/https:\S+/.exec(invoice)![0]).pathname;
    const paid = await u.client.request('POST', path, 'outcome=finished', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(paid.status).toBe(303);
    const msg = await waitFor(() => fake.sent(u.chatId).find((t) => t.includes('credited')), 'the credited message');
    expect(msg).toContain('12.00 GB added');
    expect(msg).toContain('Remaining: 12.00 GB');
    // A repeat delivery credits nothing and says nothing more.
    await u.client.request('POST', path, 'outcome=finished', { 'content-type': 'application/x-www-form-urlencoded' });
    await new Promise((r) => setTimeout(r, 500));
    expect(fake.sent(u.chatId).filter((t) => t.includes('credited'))).toHaveLength(1);
  });

  it('never waits for Telegram: a slow Bot API does not hold up the payment', async () => {
    const u = await linkedUser();
    const invoice = await say(u.chatId, '/buy 12');
    const path = new URL(/https:\S+/.exec(invoice)![0]).pathname;
    fake.delayMs = 3000;
    try {
      const started = Date.now();
      const paid = await u.client.request('POST', path, 'outcome=finished', { 'content-type': 'application/x-www-form-urlencoded' });
      expect(paid.status).toBe(303);
      expect(Date.now() - started).toBeLessThan(2500);
      expect((await u.client.get<{ credits: number }>('/auth/user')).status).toBe(200);
      await waitFor(() => fake.sent(u.chatId).find((t) => t.includes('credited')), 'the credited message');
    } finally {
      fake.delayMs = 0;
    }
  });

  it('suspended and resumed; a refused suspension says nothing', async () => {
    const u = await linkedUser();
    await admin.post(`/admin/users/${u.user.id}/suspend`, { reason: 'abuse report' });
    await waitFor(() => fake.sent(u.chatId).find((t) => t.includes('suspended')), 'the suspension message');
    // Already suspended: the change is refused and rolled back, its message with it.
    expect((await admin.post(`/admin/users/${u.user.id}/suspend`, { reason: 'again' })).status).toBe(409);
    const queued = await server.deps.db.select().from(telegramOutbox).where(eq(telegramOutbox.chatId, u.chatId));
    expect(queued.filter((m) => m.text.includes('suspended'))).toHaveLength(1);
    await admin.post(`/admin/users/${u.user.id}/unsuspend`, { reason: 'resolved' });
    await waitFor(() => fake.sent(u.chatId).find((t) => t.includes('resumed')), 'the resumption message');
  });

  it('the low-balance alert at the e-mail threshold', async () => {
    const u = await linkedUser();
    await say(u.chatId, `/redeem ${await mintCode(2)}`);
    expect((await u.client.request('PUT', '/api/alerts', { lowBalanceGB: 1 })).status).toBe(200);
    expect((await admin.post(`/admin/users/${u.user.id}/adjust`, { deltaGB: -1.5, reason: 'test' })).status).toBe(200);
    const msg = await waitFor(() => fake.sent(u.chatId).find((t) => t.includes('Low balance')), 'the low-balance message');
    expect(msg).toContain('0.50 GB');
    expect(msg).toContain('1.00 GB');
    await server.settle();
    expect(server.mails(u.email).some((m) => /low/i.test(m.subject))).toBe(true);
  });

  it('a 429 is retried after its retry_after', async () => {
    const u = await linkedUser();
    await new Promise((r) => setTimeout(r, 1100));
    fake.tooManyRequests.push(1);
    const before = fake.calls.length;
    const started = Date.now();
    expect(await say(u.chatId, '/help')).toContain('/balance');
    const attempts = fake.calls.slice(before).filter((c) => c.method === 'sendMessage' && c.body.chat_id === u.chatId);
    expect(attempts.map((c) => c.status)).toEqual([429, 200]);
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });
});

describe('broadcast', () => {
  it('sends to every linked chat, answers how many, and is audited', async () => {
    const a = await linkedUser();
    const b = await linkedUser();
    const linked = (await server.deps.db.select().from(telegramChats)).length;
    const r = await admin.post('/admin/telegram/broadcast', { text: 'Maintenance tonight at 22:00 UTC' });
    expect(r).toMatchObject({ status: 200, body: { success: true, sent: linked } });
    for (const chat of [a.chatId, b.chatId]) await waitFor(() => fake.sent(chat).find((t) => t === 'Maintenance tonight at 22:00 UTC'), `chat ${chat}`);
    const audit = await server.deps.db.select().from(auditLog).where(eq(auditLog.action, 'admin.telegramBroadcast'));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actor).toBe(`admin:${ADMIN_USERNAME}`);
    const pending = await server.deps.db.select().from(telegramOutbox);
    expect(pending.filter((m) => m.text.startsWith('Maintenance')).length).toBe(linked);
  });

  it('refuses an empty or too long text, naming the field', async () => {
    for (const text of ['', 'x'.repeat(4097)]) {
      const r = await admin.post('/admin/telegram/broadcast', { text });
      expect(r.status).toBe(400);
      expect(String(r.body.error)).toMatch(/^text/);
    }
    expect((await admin.post('/admin/telegram/broadcast', { text: 'x'.repeat(4096) })).status).toBe(200);
    expect((await server.client().post('/admin/telegram/broadcast', { text: 'hi' })).status).toBe(401);
    const { client } = await signedInUser(server);
    expect((await client.post('/admin/telegram/broadcast', { text: 'hi' })).status).toBe(403);
  });
});

describe('account deletion', () => {
  it('unlinks the chat', async () => {
    const u = await linkedUser();
    const r = await u.client.request('DELETE', '/auth/user', { password: 'Secret123' });
    expect(r.status).toBe(200);
    expect(await say(u.chatId, '/balance')).toContain('/start');
  });
});

describe('/status', () => {
  /** Probes as only the prober writes them (a second apart, from 10 minutes ago), then the incident check it runs after a round. */
  const base = Date.now() - 600_000;
  let seq = 0;
  async function probed(country: string, oks: boolean[]) {
    await server.database.db
      .insert(qualityProbes)
      .values(
        oks.map((ok) => ({ country, upstreamId: null, at: new Date(base + ++seq * 1000), ok, connectMs: ok ? 150 : null, exitCountry: ok ? country : null })),
      );
    return updateIncidents(server.database.db, [country], server.config);
  }

  it('/status subscribe: one message when a country becomes degraded and one when it recovers; /status shows the board; unsubscribe stops them', async () => {
    const chatId = nextChat++;
    // No link needed: the board is public.
    expect(await say(chatId, '/status subscribe')).toBe(STATUS_SUBSCRIBED);
    expect(await say(chatId, '/status now')).toBe(STATUS_USAGE);

    expect(await probed('FR', [false, true, false])).toHaveLength(1);
    const opened = await waitFor(() => fake.sent(chatId).find((t) => t.includes('FR is degraded')), 'the degraded message');
    expect(opened).toBe('ProxyHub status: FR is degraded. Test connections through FR exits are failing.');
    // Still failing: no second message.
    expect(await probed('FR', [false])).toHaveLength(0);
    expect(await say(chatId, '/status')).toContain('FR: DEGRADED, 25.0% ok, connect 150 ms');

    expect(await probed('FR', [true, true, true])).toHaveLength(1);
    await waitFor(() => fake.sent(chatId).find((t) => t.includes('FR has recovered')), 'the recovered message');
    expect(fake.sent(chatId).filter((t) => t.startsWith('ProxyHub status: FR'))).toHaveLength(2);

    expect(await say(chatId, '/status unsubscribe')).toBe(STATUS_UNSUBSCRIBED);
    await probed('FR', [false, false, false]);
    const outbox = await server.database.db.select().from(telegramOutbox).where(eq(telegramOutbox.chatId, chatId));
    expect(outbox.filter((m) => m.text.startsWith('ProxyHub status:'))).toHaveLength(2);
  });
});

/** What a Telegram app in each of our languages sends as its language_code. */
const APP_LANGUAGE: Record<Locale, string> = { en: 'en', ru: 'ru', 'zh-CN': 'zh-hans', es: 'es', 'pt-BR': 'pt-br' };

const RAW_KEY = /\{\{|\bbot:|\b(board|notify)\.[a-zA-Z]+|\b(notLinked|linkInvalid|redeemUsage|statusSubscribed)\b/;

describe.each(LOCALES)('the bot in %s', (locale) => {
  const t = translatorFor(locale);
  const bot = (key: string, values: Record<string, unknown> = {}) => (t as unknown as (k: string, o: object) => string)(key, { ns: 'bot', ...values });

  it("an unlinked chat: Telegram's app language", async () => {
    const chatId = nextChat++;
    const help = await say(chatId, '/help', APP_LANGUAGE[locale]);
    expect(help).toBe(bot('help'));
    expect(help).not.toMatch(RAW_KEY);
    expect(await say(chatId, '/balance', APP_LANGUAGE[locale])).toBe(bot('notLinked'));
    expect(await say(chatId, '/start NOSUCHCODE', APP_LANGUAGE[locale])).toBe(bot('linkInvalid'));
    if (locale !== 'en') expect(help).not.toBe(translatorFor('en')('help', { ns: 'bot' }));
  });

  it("a linked chat: the account's language, whatever the app's; notifications too", async () => {
    const u = await signedInUser(server);
    expect((await u.client.request('PATCH', '/api/account', { locale })).status).toBe(200);
    const chatId = nextChat++;
    const link = await u.client.post<{ code: string }>('/api/telegram/link');
    // The app asks for English: the account's choice wins.
    expect(await say(chatId, `/start ${link.body.code}`, 'en')).toBe(bot('linked', { name: u.email }));
    const balance = await say(chatId, '/balance', 'en');
    const zero = new Intl.NumberFormat(locale, { style: 'unit', unit: 'gigabyte', unitDisplay: 'short', minimumFractionDigits: 2 }).format(0);
    expect(balance).toBe(bot('balance', { remaining: zero, used: zero }));
    expect(await say(chatId, '/redeem', 'en')).toBe(bot('redeemUsage'));
    expect(await say(chatId, '/proxies US 1000', 'en')).toBe(bot('proxiesCount', { max: 100 }));
    expect(await say(chatId, '/proxies ZZ', 'en')).toBe(bot('unknownCountry', { country: 'ZZ' }));

    await admin.post(`/admin/users/${u.user.id}/suspend`, { reason: 'abuse report' });
    await waitFor(() => fake.sent(chatId).find((m) => m === bot('notify.suspended')), 'the suspension message');
    await admin.post(`/admin/users/${u.user.id}/unsuspend`, { reason: 'resolved' });
    await waitFor(() => fake.sent(chatId).find((m) => m === bot('notify.resumed')), 'the resumption message');
    for (const m of fake.sent(chatId)) expect(m).not.toMatch(RAW_KEY);
  });

  it('/status subscribe answers in the chat language', async () => {
    const chatId = nextChat++;
    expect(await say(chatId, '/status subscribe', APP_LANGUAGE[locale])).toBe(bot('statusSubscribed'));
    expect(await say(chatId, '/status', APP_LANGUAGE[locale])).not.toMatch(RAW_KEY);
    expect(await say(chatId, '/status unsubscribe', APP_LANGUAGE[locale])).toBe(bot('statusUnsubscribed'));
  });
});
