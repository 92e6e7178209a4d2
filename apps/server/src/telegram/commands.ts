/**
 * What the bot answers. Every command runs the same procedures as the web app, through a server-side
 * caller signed in as the chat's account: the same rules, rate limits and messages, never a copy.
 */
import { TRPCError } from '@trpc/server';
import { eq } from 'drizzle-orm';
import type { Bot, Context as BotContext } from 'grammy';
import { ZodError } from 'zod';
import {
  chatLocale,
  chatOwner,
  createCaller,
  figures,
  firstZodMessage,
  kickTelegram,
  linkTelegramChat,
  newTopupCode,
  setChatSubscribed,
  type ApiDeps,
  type ChatOwner,
  type Context,
  type Translator,
} from '@proxyhub/api';
import {
  cryptoPaymentInput,
  DEFAULT_DURATION_MINUTES,
  DEFAULT_PROXY_FORMAT,
  formatProxyList,
  gbBreakdown,
  generateProxies,
  orderPriceCents,
  ROTATION_REACHES_GATEWAYS_SECONDS,
  TELEGRAM_MESSAGE_MAX,
} from '@proxyhub/core';
import { DEFAULT_LOCALE, formatNumber, type Locale } from '@proxyhub/core/i18n';
import { translatorFor } from '@proxyhub/core/i18n/server';
import { adminUsers, users } from '@proxyhub/db';

/** English, as the tests and the docs quote them; every reply goes out in the chat's language. */
const en = translatorFor(DEFAULT_LOCALE);
export const HELP_TEXT = en('help', { ns: 'bot' });
export const NOT_LINKED = en('notLinked', { ns: 'bot' });
/** Every member of a group would act as the linked account (and see its proxy password). */
export const PRIVATE_CHAT_ONLY = en('privateChatOnly', { ns: 'bot' });
export const STATUS_SUBSCRIBED = en('statusSubscribed', { ns: 'bot' });
export const STATUS_UNSUBSCRIBED = en('statusUnsubscribed', { ns: 'bot' });
export const STATUS_USAGE = en('statusUsage', { ns: 'bot' });

/** The board in a message: each country's last 24 hours, degraded ones first. */
export function statusBoardText(
  t: Translator,
  locale: Locale,
  countries: ReadonlyArray<{ country: string; okRate24h: number | null; p50ConnectMs: number | null; degraded: boolean }>,
): string {
  if (!countries.length) return t('board.empty', { ns: 'bot' });
  const rows = [...countries].sort((a, b) => Number(b.degraded) - Number(a.degraded) || a.country.localeCompare(b.country));
  const pct = (r: number | null) =>
    r === null
      ? t('board.noProbes', { ns: 'bot' })
      : t('board.okRate', { ns: 'bot', rate: formatNumber(locale, r, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 }) });
  const line = (c: (typeof rows)[number]) =>
    `${c.country}: ${c.degraded ? t('board.degraded', { ns: 'bot' }) : ''}${pct(c.okRate24h)}${c.p50ConnectMs === null ? '' : t('board.connect', { ns: 'bot', ms: formatNumber(locale, c.p50ConnectMs) })}`;
  return [t('board.heading', { ns: 'bot' }), ...rows.map(line)].join('\n');
}

export const PROXIES_MAX = 100;
export const PROXIES_DEFAULT = 10;

/** The tRPC context of one chat's account: no cookies, a rate-limit key of its own per chat. */
async function contextFor(deps: ApiDeps, chatId: number, owner: ChatOwner | null, locale: Locale): Promise<Context> {
  const ctx: Context = {
    deps,
    db: deps.db,
    req: { ip: `telegram:${chatId}`, header: () => undefined, cookie: () => undefined, locale },
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

/** What a command knows of its chat: the caller of its account, its words and its figures' language. */
interface Chat {
  caller: Caller;
  deps: ApiDeps;
  t: Translator;
  locale: Locale;
}

/** The customer commands: each gets the caller of the chat's user. */
const customerCommands: Record<string, (chat: Chat, args: string[]) => Promise<string>> = {
  async balance({ caller, t, locale }) {
    const me = await caller.auth.me();
    const gb = gbBreakdown(me.credits, me.total_usage_bytes);
    return t('balance', { ns: 'bot', remaining: gbText(locale, gb.remaining), used: gbText(locale, gb.used) });
  },
  async redeem({ caller, t, locale }, [code]) {
    if (!code) return t('redeemUsage', { ns: 'bot' });
    const r = await caller.credits.redeem({ code });
    return t('redeemed', { ns: 'bot', message: r.message, remaining: figures.gb(locale, r.remainingBytes) });
  },
  async buy({ caller, t }, [amount]) {
    if (!amount) return t('buyUsage', { ns: 'bot' });
    const checked = cryptoPaymentInput.shape.gbAmount.safeParse(Number(amount));
    if (!checked.success) return firstZodMessage(checked.error);
    // The Top Up page's price for that amount: the server recomputes it and refuses a disagreeing one.
    const r = await caller.credits.createCryptoPayment({ gbAmount: checked.data, priceUsd: orderPriceCents(checked.data) / 100 });
    return `${r.message}\n${r.invoiceUrl}`;
  },
  async proxies({ caller, deps, t }, [country, n]) {
    if (!country) return t('proxiesUsage', { ns: 'bot' });
    const count = n === undefined ? PROXIES_DEFAULT : Number(n);
    if (!Number.isInteger(count) || count < 1 || count > PROXIES_MAX) return t('proxiesCount', { ns: 'bot', max: PROXIES_MAX });
    const code = country.toUpperCase();
    const offered = await caller.locations.countries();
    if (!offered.some((c) => c.code === code)) return t('unknownCountry', { ns: 'bot', country });
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
  async rotate({ caller, t }, [line]) {
    if (!line) return t('rotateUsage', { ns: 'bot' });
    const r = await caller.proxyAccounts.rotateLine({ username: line });
    return t('lineRotated', { ns: 'bot', username: r.username, seconds: ROTATION_REACHES_GATEWAYS_SECONDS });
  },
};

/** A GB figure the dashboard's way (gbBreakdown's two decimals) in the chat's language. */
const gbText = (locale: Locale, gb: string) =>
  formatNumber(locale, Number(gb), { style: 'unit', unit: 'gigabyte', unitDisplay: 'short', minimumFractionDigits: 2, maximumFractionDigits: 2 });

async function reply(ctx: BotContext, text: string): Promise<void> {
  for (const part of splitMessage(text)) await ctx.reply(part, { link_preview_options: { is_disabled: true } });
}

/** The chat's language: its linked user's, else the sender's Telegram app's. */
async function wordsFor(deps: ApiDeps, ctx: BotContext): Promise<{ t: Translator; locale: Locale }> {
  const locale = await chatLocale(deps.db, ctx.chat!.id, ctx.from?.language_code);
  return { t: translatorFor(locale), locale };
}

/** Wires the commands onto the bot. */
export function registerCommands(bot: Bot, deps: ApiDeps): void {
  bot.command('start', async (ctx) => {
    const code = ctx.match.trim();
    if (ctx.chat.type !== 'private') return reply(ctx, (await wordsFor(deps, ctx)).t('privateChatOnly', { ns: 'bot' }));
    if (!code) {
      const { t } = await wordsFor(deps, ctx);
      const owner = await chatOwner(deps.db, ctx.chat.id);
      return reply(ctx, owner ? t('help', { ns: 'bot' }) : t('notLinked', { ns: 'bot' }));
    }
    const linked = await deps.db.transaction((tx) => linkTelegramChat(tx, { code, chatId: ctx.chat.id }));
    deps.cache.invalidate();
    // Asked after linking: the account's language now answers.
    const { t } = await wordsFor(deps, ctx);
    await reply(ctx, linked ? t('linked', { ns: 'bot', name: linked.name }) : t('linkInvalid', { ns: 'bot' }));
  });

  bot.command('help', async (ctx) => reply(ctx, (await wordsFor(deps, ctx)).t('help', { ns: 'bot' })));

  // Anyone may follow the board, linked or not: it is public, and the chat itself asked.
  bot.command('status', async (ctx) => {
    const { t, locale } = await wordsFor(deps, ctx);
    const arg = ctx.match.trim().toLowerCase();
    if (arg === 'subscribe' || arg === 'unsubscribe') {
      await deps.db.transaction((tx) => setChatSubscribed(tx, ctx.chat.id, arg === 'subscribe', locale));
      return reply(ctx, arg === 'subscribe' ? t('statusSubscribed', { ns: 'bot' }) : t('statusUnsubscribed', { ns: 'bot' }));
    }
    if (arg) return reply(ctx, t('statusUsage', { ns: 'bot' }));
    const board = await createCaller(await contextFor(deps, ctx.chat.id, null, locale)).status.quality();
    await reply(ctx, statusBoardText(t, locale, board.countries));
  });

  for (const [name, run] of Object.entries(customerCommands)) {
    bot.command(name, async (ctx) => {
      const { t, locale } = await wordsFor(deps, ctx);
      // A group linked before this rule acts for nobody.
      if (ctx.chat.type !== 'private') return reply(ctx, t('privateChatOnly', { ns: 'bot' }));
      const owner = await chatOwner(deps.db, ctx.chat.id);
      if (!owner) return reply(ctx, t('notLinked', { ns: 'bot' }));
      if (!('userId' in owner)) return reply(ctx, t('adminChat', { ns: 'bot' }));
      const caller = createCaller(await contextFor(deps, ctx.chat.id, owner, locale));
      const args = ctx.match.trim().split(/\s+/).filter(Boolean);
      let text: string;
      try {
        text = await run({ caller, deps, t, locale }, args);
      } catch (err) {
        text = errorText(err);
      }
      // Mutations may have queued notifications (a redeem re-arming an alert): send them now.
      kickTelegram(deps);
      await reply(ctx, text);
    });
  }

  bot.command('giveaway', async (ctx) => {
    const { t, locale } = await wordsFor(deps, ctx);
    const owner = await chatOwner(deps.db, ctx.chat.id);
    if (!owner) return reply(ctx, t('notLinked', { ns: 'bot' }));
    if (!('adminId' in owner)) return reply(ctx, t('giveawayAdminsOnly', { ns: 'bot' }));
    const [gb, count, ...rest] = ctx.match.trim().split(/\s+/).filter(Boolean);
    if (!gb || !count || rest.length) return reply(ctx, t('giveawayUsage', { ns: 'bot' }));
    // The promotions procedure itself: the admin's role, its validation messages and the audit log apply.
    const caller = createCaller(await contextFor(deps, ctx.chat.id, owner, locale));
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
      text = t('giveawayCreated', { ns: 'bot', code: promotion.code, gb: figures.wholeGb(locale, Number(gb)), count: promotion.maxRedemptions });
    } catch (err) {
      text = errorText(err);
    }
    await reply(ctx, text);
  });

  // Anything else, a command or not: the list of commands.
  bot.on('message', async (ctx) => reply(ctx, (await wordsFor(deps, ctx)).t('help', { ns: 'bot' })));
}
