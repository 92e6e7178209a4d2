import { telegramBroadcastInput } from '@proxyhub/core';
import { restRoute } from './rest';

/** Linking a Telegram chat (Settings, the admin panel) and the admin's broadcast. */
export const telegramRoutes = [
  restRoute({ method: 'GET', url: '/api/telegram/link' }, async (caller) => ({ success: true, ...(await caller.telegram.status()) })),
  restRoute({ method: 'POST', url: '/api/telegram/link' }, async (caller) => ({ success: true, ...(await caller.telegram.link()) })),
  restRoute({ method: 'DELETE', url: '/api/telegram/link' }, async (caller) => ({ success: true, ...(await caller.telegram.unlink()) })),
  restRoute({ method: 'GET', url: '/admin/telegram/link' }, async (caller) => ({ success: true, ...(await caller.admin.telegramStatus()) })),
  restRoute({ method: 'POST', url: '/admin/telegram/link' }, async (caller) => ({ success: true, ...(await caller.admin.telegramLink()) })),
  restRoute({ method: 'DELETE', url: '/admin/telegram/link' }, async (caller) => ({ success: true, ...(await caller.admin.telegramUnlink()) })),
  restRoute({ method: 'POST', url: '/admin/telegram/broadcast', body: telegramBroadcastInput }, (caller, input) => caller.admin.telegramBroadcast(input)),
];
