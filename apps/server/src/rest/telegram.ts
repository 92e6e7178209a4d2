import {
  telegramBroadcastInput,
  adminTelegramBroadcastOutput,
  adminTelegramLinkOutput,
  adminTelegramStatusOutput,
  adminTelegramUnlinkOutput,
  telegramLinkOutput,
  telegramStatusOutput,
  telegramUnlinkOutput,
} from '@proxyhub/core';
import { restRoute, withSuccess } from './rest';

/** Linking a Telegram chat (Settings, the admin panel) and the admin's broadcast. */
export const telegramRoutes = [
  restRoute(
    { method: 'GET', url: '/api/telegram/link', summary: 'Whether a Telegram chat is linked for alerts.', response: withSuccess(telegramStatusOutput) },
    async (caller) => ({ success: true, ...(await caller.telegram.status()) }),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/api/telegram/link',
      summary: 'Starts linking a Telegram chat: answers the bot link to open.',
      response: withSuccess(telegramLinkOutput),
    },
    async (caller) => ({ success: true, ...(await caller.telegram.link()) }),
  ),
  restRoute(
    { method: 'DELETE', url: '/api/telegram/link', summary: 'Unlinks the Telegram chat.', response: withSuccess(telegramUnlinkOutput) },
    async (caller) => ({ success: true, ...(await caller.telegram.unlink()) }),
  ),
  restRoute(
    { method: 'GET', url: '/admin/telegram/link', summary: `Whether the admin's Telegram chat is linked.`, response: withSuccess(adminTelegramStatusOutput) },
    async (caller) => ({ success: true, ...(await caller.admin.telegramStatus()) }),
  ),
  restRoute(
    { method: 'POST', url: '/admin/telegram/link', summary: `Starts linking the admin's Telegram chat.`, response: withSuccess(adminTelegramLinkOutput) },
    async (caller) => ({ success: true, ...(await caller.admin.telegramLink()) }),
  ),
  restRoute(
    { method: 'DELETE', url: '/admin/telegram/link', summary: `Unlinks the admin's Telegram chat.`, response: withSuccess(adminTelegramUnlinkOutput) },
    async (caller) => ({ success: true, ...(await caller.admin.telegramUnlink()) }),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/admin/telegram/broadcast',
      summary: 'Sends a message to every linked Telegram chat.',
      response: adminTelegramBroadcastOutput,
      body: telegramBroadcastInput,
    },
    (caller, input) => caller.admin.telegramBroadcast(input),
  ),
];
