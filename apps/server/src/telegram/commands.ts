/**
 * What the bot answers. Every command runs the same procedures as the web app, through a server-side
 * caller signed in as the chat's account: the same rules, rate limits and messages, never a copy.
 */
import { TRPCError } from '@trpc/server';
import { eq } from 'drizzle-orm';
import type { Bot, Context as BotContext } from 'grammy';
import { ZodError } from 'zod';
import {
  chatOwner,
  createCaller,
  firstZodMessage,
  kickTelegram,
  linkTelegramChat,
  newTopupCode,
  setChatSubscribed,
  type ApiDeps,
  type ChatOwner,
  type Context,
} from '@proxyhub/api';
import {
  cryptoPaymentInput,
  DEFAULT_DURATION_MINUTES,
  DEFAULT_PROXY_FORMAT,
  formatGb,
  formatProxyList,
  gbBreakdown,
  generateProxies,
  orderPriceCents,
  lineRotatedMessage,
  TELEGRAM_MESSAGE_MAX,
} from '@proxyhub/core';
import { adminUsers, users } from '@proxyhub/db';

export const HELP_TEXT = [
  'ProxyHub bot commands:',
  '/balance - remaining and used data',
  '/redeem CODE - redeem a credit code',
  '/buy GB - a crypto invoice for that many GB',
  '/proxies COUNTRY [N] - N proxy lines for a country (default 10, at most 100), sticky 60 minutes',
  '/rotate LINE - a new IP now for one of your sticky lines (its username or the whole line)',
  '/giveaway GB COUNT - admins: a code COUNT people can redeem once each',
  '/status - the measured quality board; /status subscribe (or unsubscribe) - a message when a country becomes degraded and when it recovers',
  '/help - this list',
].join('\n');

export const NOT_LINKED =
  'This chat is not linked to a ProxyHub account. In Settings on the website, press "Connect Telegram" and open the link it gives (or send /start CODE with its code here).';
/** Every member of a group would act as the linked account (and see its proxy password). */
export const PRIVATE_CHAT_ONLY = 'Link your account in a private chat with the bot';
export const LINK_INVALID = 'This link code is invalid or expired. Get a new link from Settings on the website.';
export const ADMIN_CHAT = 'This chat is linked to an admin account: /balance, /redeem, /buy, /proxies and /rotate are for customer accounts.';
export const ROTATE_USAGE = 'Usage: /rotate LINE, for example /rotate host:port:username:password (or just the username)';
export const GIVEAWAY_ADMINS_ONLY = 'Only a chat linked to an admin account can create giveaways.';
export const GIVEAWAY_USAGE = 'Usage: /giveaway GB COUNT (for example /giveaway 1 50: 1 GB each for the first 50 people).';

export const STATUS_SUBSCRIBED = 'Subscribed: this chat gets a message when a country becomes degraded and when it recovers. /status unsubscribe stops them.';
export const STATUS_UNSUBSCRIBED = 'Unsubscribed: this chat gets no more status messages.';
export const STATUS_USAGE = 'Usage: /status, /status subscribe or /status unsubscribe';

/** The board in a message: each country's last 24 hours, degraded ones first. */
export function statusBoardText(
  countries: ReadonlyArray<{ country: string; okRate24h: number | null; p50ConnectMs: number | null; degraded: boolean }>,
): string {
  if (!countries.length) return 'No measurements yet.';
  const rows = [...countries].sort((a, b) => Number(b.degraded) - Number(a.degraded) || a.country.localeCompare(b.country));
  const pct = (r: number | null) => (r === null ? 'no probes' : `${(r * 100).toFixed(1)}% ok`);
  return [
    'Measured quality, last 24 hours:',
    ...rows.map((c) => `${c.country}: ${c.degraded ? 'DEGRADED, ' : ''}${pct(c.okRate24h)}${c.p50ConnectMs === null ? '' : `, connect ${c.p50ConnectMs} ms`}`),
  ].join('\n');
}

export function giveawayText(code: string, gb: number, count: number): string {
  return `Giveaway created: ${code}\n${gb} GB each for the first ${count} ${count === 1 ? 'person' : 'people'}. Claim it with /redeem ${code}`;
}
export const PROXIES_MAX = 100;
export const PROXIES_DEFAULT = 10;

/** The tRPC context of one chat's account: no cookies, a rate-limit key of its own per chat. */
async function contextFor(deps: ApiDeps, chatId: number, owner: ChatOwner | null): Promise<Context> {
  const ctx: Context = {
    deps,
    db: deps.db,
    req: { ip: `telegram:${chatId}`, header: () => undefined, cookie: () => undefined },
    res: { setCookie: () => undefined },
    user: null,
    sessionId: null,
    admin: null,
    adminSessionId: null,
    internal: false,
    suspended: false,
    // A linked chat acts as its owner's session does.
    apiKey: null,
    apiKeyRefused: null,
    actor: null,
    self: null,
    accountRefused: null,
  };
  if (!owner) return ctx;
  if ('userId' in owner) {
    const [u] = await deps.db.select().from(users).where(eq(users.id, owner.userId));
    // A suspended account is refused by the procedures with the web's own message.
    if (u?.disabledAt) ctx.suspended = true;
    else ctx.user = u ?? null;
  } else {
    const [a] = await deps.db.select().from(adminUsers).where(eq(adminUsers.id, owner.adminId));
    ctx.admin = a && !a.disabledAt ? a : null;
  }
  return ctx;
}

/** A procedure's refusal as the web shows it. */
function errorText(err: unknown): string {
  if (err instanceof TRPCError) {
    if (err.cause instanceof ZodError) return firstZodMessage(err.cause);
    if (err.code !== 'INTERNAL_SERVER_ERROR') return err.message;
  }
  throw err;
}

/** Telegram takes at most 4,096 characters a message: a long list goes out in several, split between lines. */
export function splitMessage(text: string, max = TELEGRAM_MESSAGE_MAX): string[] {
  const parts: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    if (current && current.length + 1 + line.length > max) {
      parts.push(current);
      current = line;
    } else current = current ? `${current}\n${line}` : line;
  }
  if (current) parts.push(current);
  return parts;
}

type Caller = ReturnType<typeof createCaller>;

/** The customer commands: each gets the caller of the chat's user. */
const customerCommands: Record<string, (caller: Caller, args: string[], deps: ApiDeps) => Promise<string>> = {
  async balance(caller) {
    const me = await caller.auth.me();
    const gb = gbBreakdown(me.credits, me.total_usage_bytes);
    return `Remaining: ${gb.remaining} GB\nUsed: ${gb.used} GB`;
  },
  async redeem(caller, [code]) {
    if (!code) return 'Usage: /redeem CODE';
    const r = await caller.credits.redeem({ code });
    return `${r.message}. Remaining: ${formatGb(r.remainingBytes)} GB`;
  },
  async buy(caller, [amount]) {
    if (!amount) return 'Usage: /buy GB (a whole number of GB)';
    const checked = cryptoPaymentInput.shape.gbAmount.safeParse(Number(amount));
    if (!checked.success) return firstZodMessage(checked.error);
    // The Top Up page's price for that amount: the server recomputes it and refuses a disagreeing one.
    const r = await caller.credits.createCryptoPayment({ gbAmount: checked.data, priceUsd: orderPriceCents(checked.data) / 100 });
    return `${r.message}\n${r.invoiceUrl}`;
  },
  async proxies(caller, [country, n], deps) {
    if (!country) return 'Usage: /proxies COUNTRY [N], for example /proxies US 10';
    const count = n === undefined ? PROXIES_DEFAULT : Number(n);
    if (!Number.isInteger(count) || count < 1 || count > PROXIES_MAX) return `N must be a whole number from 1 to ${PROXIES_MAX}`;
    const code = country.toUpperCase();
    const offered = await caller.locations.countries();
    if (!offered.some((c) => c.code === code)) return `Unknown country: ${country}. Use a two-letter code the generator offers (for example US).`;
    const [me, endpoint] = await Promise.all([caller.auth.me(), caller.gateway.endpoint()]);
    // No public gateway host configured: the gateway runs beside the site's own host, as the generator assumes.
    const ep = { host: endpoint.host ?? new URL(deps.config.publicUrl).hostname, port: endpoint.port };
    const proxies = generateProxies({
      proxyUserId: me.proxyUserId,
      proxyPassword: me.proxyPassword,
      location: { country: code },
      durationMinutes: DEFAULT_DURATION_MINUTES,
      count,
      endpoint: ep,
    });
    return formatProxyList(proxies, DEFAULT_PROXY_FORMAT, ep);
  },
  async rotate(caller, [line]) {
    if (!line) return ROTATE_USAGE;
    const r = await caller.proxyAccounts.rotateLine({ username: line });
    return lineRotatedMessage(r.username);
  },
};

async function reply(ctx: BotContext, text: string): Promise<void> {
  for (const part of splitMessage(text)) await ctx.reply(part, { link_preview_options: { is_disabled: true } });
}

/** Wires the commands onto the bot. */
export function registerCommands(bot: Bot, deps: ApiDeps): void {
  bot.command('start', async (ctx) => {
    if (ctx.chat.type !== 'private') return reply(ctx, PRIVATE_CHAT_ONLY);
    const code = ctx.match.trim();
    if (!code) {
      const owner = await chatOwner(deps.db, ctx.chat.id);
      return reply(ctx, owner ? HELP_TEXT : NOT_LINKED);
    }
    const linked = await deps.db.transaction((tx) => linkTelegramChat(tx, { code, chatId: ctx.chat.id }));
    deps.cache.invalidate();
    await reply(ctx, linked ? `Linked to ${linked.name}. Send /help for the commands.` : LINK_INVALID);
  });

  bot.command('help', (ctx) => reply(ctx, HELP_TEXT));

  // Anyone may follow the board, linked or not: it is public, and the chat itself asked.
  bot.command('status', async (ctx) => {
    const arg = ctx.match.trim().toLowerCase();
    if (arg === 'subscribe' || arg === 'unsubscribe') {
      await deps.db.transaction((tx) => setChatSubscribed(tx, ctx.chat.id, arg === 'subscribe'));
      return reply(ctx, arg === 'subscribe' ? STATUS_SUBSCRIBED : STATUS_UNSUBSCRIBED);
    }
    if (arg) return reply(ctx, STATUS_USAGE);
    const board = await createCaller(await contextFor(deps, ctx.chat.id, null)).status.quality();
    await reply(ctx, statusBoardText(board.countries));
  });

  for (const [name, run] of Object.entries(customerCommands)) {
    bot.command(name, async (ctx) => {
      // A group linked before this rule acts for nobody.
      if (ctx.chat.type !== 'private') return reply(ctx, PRIVATE_CHAT_ONLY);
      const owner = await chatOwner(deps.db, ctx.chat.id);
      if (!owner) return reply(ctx, NOT_LINKED);
      if (!('userId' in owner)) return reply(ctx, ADMIN_CHAT);
      const caller = createCaller(await contextFor(deps, ctx.chat.id, owner));
      const args = ctx.match.trim().split(/\s+/).filter(Boolean);
      let text: string;
      try {
        text = await run(caller, args, deps);
      } catch (err) {
        text = errorText(err);
      }
      // Mutations may have queued notifications (a redeem re-arming an alert): send them now.
      kickTelegram(deps);
      await reply(ctx, text);
    });
  }

  bot.command('giveaway', async (ctx) => {
    const owner = await chatOwner(deps.db, ctx.chat.id);
    if (!owner) return reply(ctx, NOT_LINKED);
    if (!('adminId' in owner)) return reply(ctx, GIVEAWAY_ADMINS_ONLY);
    const [gb, count, ...rest] = ctx.match.trim().split(/\s+/).filter(Boolean);
    if (!gb || !count || rest.length) return reply(ctx, GIVEAWAY_USAGE);
    // The promotions procedure itself: the admin's role, its validation messages and the audit log apply.
    const caller = createCaller(await contextFor(deps, ctx.chat.id, owner));
    let text: string;
    try {
      const { promotion } = await caller.admin.createPromotion({
        code: newTopupCode(),
        kind: 'credit',
        creditsGB: Number(gb),
        maxRedemptions: Number(count),
        maxPerUser: 1,
        campaign: 'telegram',
      });
      text = giveawayText(promotion.code, Number(gb), promotion.maxRedemptions);
    } catch (err) {
      text = errorText(err);
    }
    await reply(ctx, text);
  });

  // Anything else, a command or not: the list of commands.
  bot.on('message', (ctx) => reply(ctx, HELP_TEXT));
}
