import { z } from 'zod';

/** Telegram's limit on one message's text. */
export const TELEGRAM_MESSAGE_MAX = 4096;

/** An admin's message to every linked chat. */
export const telegramBroadcastInput = z.object({
  text: z
    .string({ error: 'text must be a string' })
    .min(1, 'text must not be empty')
    .max(TELEGRAM_MESSAGE_MAX, `text must be at most ${TELEGRAM_MESSAGE_MAX} characters`)
    .refine((t) => t.trim().length > 0, 'text must not be empty'),
});
export type TelegramBroadcastInput = z.infer<typeof telegramBroadcastInput>;
