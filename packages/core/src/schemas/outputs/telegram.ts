import { z } from 'zod';

/** What the `telegram.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const telegramStatusOutput = z.object({
  enabled: z.boolean(),
  botUsername: z.string().nullable(),
  chat: z.object({ chatId: z.number(), linkedAt: z.string() }).nullable(),
});

export const telegramLinkOutput = z.object({ code: z.string(), url: z.string() });

export const telegramUnlinkOutput = z.object({ unlinked: z.boolean() });
