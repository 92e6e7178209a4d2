import { startFakeJsonApi } from './fakes';

export const BOT_TOKEN = '123456:test-bot-token';
export const BOT_USERNAME = 'proxyhub_test_bot';
export const WEBHOOK_SECRET = 'test-webhook-secret_0123456789';

export interface BotCall {
  method: string;
  body: Record<string, unknown>;
  at: number;
  /** The HTTP status the fake answered. */
  status: number;
}

/** A stand-in for the Telegram Bot API on loopback: getMe, sendMessage, setWebhook, and a 429 on demand. */
export class FakeTelegram {
  readonly calls: BotCall[] = [];
  /** The next sendMessage calls answered 429 with this retry_after (seconds), once each. */
  tooManyRequests: number[] = [];
  /** sendMessage answers only after this long (a slow Telegram). */
  delayMs = 0;
  private api!: { url: string; close(): Promise<void> };
  private messageId = 1;
  url = '';

  async start() {
    this.api = await startFakeJsonApi((req, reply) => {
      const current: { call?: BotCall } = {};
      const send = (status: number, body: unknown) => {
        if (current.call) current.call.status = status;
        reply(status, body);
      };
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url);
      if (!m || m[1] !== BOT_TOKEN) return send(401, { ok: false, error_code: 401, description: 'Unauthorized' });
      const method = m[2]!;
      const body = req.body ? (JSON.parse(req.body) as Record<string, unknown>) : {};
      current.call = { method, body, at: Date.now(), status: 0 };
      this.calls.push(current.call);
      if (method === 'getMe') {
        return send(200, {
          ok: true,
          result: {
            id: 123456,
            is_bot: true,
            first_name: 'ProxyHub',
            username: BOT_USERNAME,
            can_join_groups: false,
            can_read_all_group_messages: false,
            supports_inline_queries: false,
          },
        });
      }
      if (method === 'setWebhook') return send(200, { ok: true, result: true, description: 'Webhook was set' });
      if (method !== 'sendMessage') return send(404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
      const retryAfter = this.tooManyRequests.shift();
      const answer = () =>
        retryAfter !== undefined
          ? send(429, { ok: false, error_code: 429, description: `Too Many Requests: retry after ${retryAfter}`, parameters: { retry_after: retryAfter } })
          : send(200, {
              ok: true,
              result: { message_id: this.messageId++, date: Math.floor(Date.now() / 1000), chat: { id: body.chat_id, type: 'private' }, text: body.text },
            });
      if (this.delayMs) setTimeout(answer, this.delayMs);
      else answer();
    });
    this.url = this.api.url;
    return this;
  }

  /** Texts delivered (answered 200) to one chat, oldest first. */
  sent(chatId: number): string[] {
    return this.calls.filter((c) => c.method === 'sendMessage' && c.status === 200 && c.body.chat_id === chatId).map((c) => String(c.body.text));
  }

  calledWith(method: string): BotCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  async close() {
    await this.api.close();
  }
}

let updateId = 1;

/** A Telegram update carrying one text message from a chat (private unless told; a group's sender is `fromId`). */
export function textUpdate(
  chatId: number,
  text: string,
  chat: { type: 'private' | 'group' | 'supergroup'; fromId?: number; languageCode?: string } = { type: 'private' },
) {
  const command = /^\/\w+/.exec(text);
  const from = chat.fromId ?? chatId;
  return {
    update_id: updateId++,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: chat.type === 'private' ? { id: chatId, type: 'private', first_name: 'Tester' } : { id: chatId, type: chat.type, title: 'Team' },
      from: { id: from, is_bot: false, first_name: 'Tester', ...(chat.languageCode ? { language_code: chat.languageCode } : {}) },
      text,
      ...(command ? { entities: [{ type: 'bot_command', offset: 0, length: command[0].length }] } : {}),
    },
  };
}
