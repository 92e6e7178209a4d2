/**
 * The shop's Telegram bot (grammY, webhook mode). Calls go to TELEGRAM_API_ROOT (the public Bot API
 * unless set; tests point it at a fake), spaced by the throttler to Telegram's limits, and a 429 is
 * retried after its retry_after.
 */
import { autoRetry } from '@grammyjs/auto-retry';
import { apiThrottler } from '@grammyjs/transformer-throttler';
import { Bot } from 'grammy';
import type { ApiDeps, Logger } from '@proxyhub/api';
import { registerCommands } from './commands';
import { startOutboxSender, type OutboxSender } from './outbox-sender';

export const TELEGRAM_WEBHOOK_PATH = '/telegram/webhook';
export const DEFAULT_TELEGRAM_API_ROOT = 'https://api.telegram.org';

export interface TelegramOptions {
  token: string;
  webhookSecret: string;
  apiRoot?: string | undefined;
  /** How often the outbox is drained besides after each change (ms). */
  outboxPollMs?: number;
  /**
   * The least time between two messages to one private chat (ms): Telegram allows about one a
   * second, the throttler's default. Tests talking to a fake Bot API set 0.
   */
  chatSpacingMs?: number;
}

export interface TelegramBot {
  bot: Bot;
  webhookSecret: string;
  sender: OutboxSender;
  stop(): Promise<void>;
}

/**
 * getMe (the username the link URLs name), then setWebhook with the secret when the public URL is
 * https (Telegram delivers to https only). Null when getMe fails: the server runs without the bot.
 */
export async function startTelegramBot(deps: ApiDeps, opts: TelegramOptions, logger: Logger): Promise<TelegramBot | null> {
  const bot = new Bot(opts.token, { client: { apiRoot: opts.apiRoot ?? DEFAULT_TELEGRAM_API_ROOT } });
  // Only private chats' spacing is ever changed; groups keep the throttler's own limits.
  bot.api.config.use(apiThrottler(opts.chatSpacingMs === undefined ? {} : { out: { maxConcurrent: 1, minTime: opts.chatSpacingMs } }));
  bot.api.config.use(autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 60 }));
  try {
    await bot.init();
  } catch (err) {
    logger.error({ err: err instanceof Error ? err.message : String(err) }, 'telegram getMe failed: the bot is off');
    return null;
  }
  const publicUrl = new URL(deps.config.publicUrl);
  if (publicUrl.protocol === 'https:') {
    const url = new URL(TELEGRAM_WEBHOOK_PATH, publicUrl).toString();
    try {
      await bot.api.setWebhook(url, { secret_token: opts.webhookSecret });
    } catch (err) {
      logger.error({ err: err instanceof Error ? err.message : String(err), url }, 'telegram setWebhook failed');
    }
  }
  registerCommands(bot, deps);
  bot.catch((err) => logger.error({ err: err.error instanceof Error ? err.error.message : String(err.error) }, 'telegram update failed'));
  const sender = startOutboxSender(deps, bot.api, { pollMs: opts.outboxPollMs });
  deps.telegram = { botUsername: bot.botInfo.username, kick: () => sender.kick() };
  logger.info({ username: bot.botInfo.username }, 'telegram bot on');
  return {
    bot,
    webhookSecret: opts.webhookSecret,
    sender,
    async stop() {
      deps.telegram = null;
      await sender.stop();
    },
  };
}
