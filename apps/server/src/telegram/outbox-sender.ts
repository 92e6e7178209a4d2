/**
 * Drains the Telegram outbox: messages written in the transactions of the changes they report
 * (payments, alerts, suspensions, broadcasts). A drain runs when a change has committed (kick) and
 * every few seconds for the rest (a crash, a failed send, changes made by another process).
 */
import { GrammyError, type Api } from 'grammy';
import { claimOutbox, markOutboxSent, releaseOutbox, type ApiDeps } from '@proxyhub/api';

export interface OutboxSender {
  kick(): void;
  /** Sends what is due now; resolves when this drain is done (tests await it). */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

export function startOutboxSender(deps: ApiDeps, api: Api, opts: { pollMs?: number } = {}): OutboxSender {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  const drainOnce = async () => {
    for (;;) {
      const batch = await claimOutbox(deps.db);
      if (!batch.length) return;
      // One chat's messages in order; chats in parallel (the throttler spaces them per Telegram's limits).
      const byChat = new Map<number, typeof batch>();
      for (const m of batch) byChat.set(m.chatId, [...(byChat.get(m.chatId) ?? []), m]);
      await Promise.all(
        [...byChat.values()].map(async (messages) => {
          for (const m of messages) {
            try {
              await api.sendMessage(m.chatId, m.text, { link_preview_options: { is_disabled: true } });
              await markOutboxSent(deps.db, m.id);
            } catch (err) {
              // A chat that blocked the bot or no longer exists (4xx) keeps failing: its attempts run out.
              deps.logger.warn({ err: err instanceof GrammyError ? err.description : String(err), chatId: m.chatId }, 'telegram message not sent');
              await releaseOutbox(deps.db, m.id);
            }
          }
        }),
      );
    }
  };

  const drain = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await drainOnce();
        } while (again && !stopped);
      } catch (err) {
        deps.logger.error({ err }, 'telegram outbox drain failed');
      } finally {
        running = null;
      }
    })();
    return running;
  };

  const timer = setInterval(() => void drain(), opts.pollMs ?? 5000);
  timer.unref();

  return {
    kick() {
      const p = drain();
      deps.background.add(p);
      void p.finally(() => deps.background.delete(p));
    },
    drain,
    async stop() {
      clearInterval(timer);
      stopped = true;
      await running;
    },
  };
}
