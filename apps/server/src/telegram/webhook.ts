import type { FastifyInstance } from 'fastify';
import { webhookCallback } from 'grammy';
import { TELEGRAM_WEBHOOK_PATH, type TelegramBot } from './bot';

/**
 * POST /telegram/webhook: Telegram's deliveries. grammY answers 401 and handles nothing unless the
 * X-Telegram-Bot-Api-Secret-Token header equals TELEGRAM_WEBHOOK_SECRET.
 */
export async function telegramWebhook(app: FastifyInstance, { telegram }: { telegram: TelegramBot }) {
  app.post(TELEGRAM_WEBHOOK_PATH, webhookCallback(telegram.bot, 'fastify', { secretToken: telegram.webhookSecret, onTimeout: 'return' }));
}
