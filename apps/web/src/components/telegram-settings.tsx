import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { telegramBroadcastInput, TELEGRAM_MESSAGE_MAX, type TelegramBroadcastInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { trpc } from '../trpc';
import { Alert, Button, Card } from './ui';

interface LinkStatus {
  enabled: boolean;
  botUsername: string | null;
  chat: { chatId: number; linkedAt: string } | null;
}

interface Props {
  status: { data?: LinkStatus | undefined; refetch(): Promise<unknown> };
  link: { mutateAsync(): Promise<{ code: string; url: string }>; isPending: boolean };
  unlink: { mutateAsync(): Promise<unknown>; isPending: boolean };
  /** Who the chat will answer as: "your account" or "your admin account". */
  whose: string;
}

/** "Connect Telegram": a one-time link (10 minutes) that opens the bot; once linked, the chat and Unlink. */
function TelegramCard({ status, link, unlink, whose }: Props) {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const s = status.data;
  async function onConnect() {
    setError(null);
    try {
      setUrl((await link.mutateAsync()).url);
    } catch (err) {
      setError(errorMessage(err, 'Could not create a link'));
    }
  }
  async function onUnlink() {
    setError(null);
    try {
      await unlink.mutateAsync();
      setUrl(null);
      await status.refetch();
    } catch (err) {
      setError(errorMessage(err, 'Unlinking failed'));
    }
  }
  return (
    <Card
      title="Connect Telegram"
      description={`Check your balance, redeem codes, top up and get proxy lists in Telegram, and get ${whose}'s notifications there.`}
    >
      {error && <Alert kind="error">{error}</Alert>}
      {s && !s.enabled && <p className="muted">The Telegram bot is not set up on this server.</p>}
      {s?.enabled && s.chat && (
        <div className="inline-form">
          <p data-testid="telegram-linked">
            Linked to Telegram chat <strong>{s.chat.chatId}</strong> since {new Date(s.chat.linkedAt).toLocaleDateString()}.
          </p>
          <Button variant="secondary" onClick={() => void onUnlink()} loading={unlink.isPending}>
            Unlink
          </Button>
        </div>
      )}
      {s?.enabled && !s.chat && (
        <div className="stack">
          <Button onClick={() => void onConnect()} loading={link.isPending}>
            Connect Telegram
          </Button>
          {url && (
            <p data-testid="telegram-link">
              Open{' '}
              <a href={url} target="_blank" rel="noreferrer">
                {url}
              </a>{' '}
              and press Start in Telegram (valid 10 minutes, once).{' '}
              <Button variant="secondary" onClick={() => void status.refetch()}>
                I have pressed Start
              </Button>
            </p>
          )}
        </div>
      )}
    </Card>
  );
}

/** Settings' card. */
export function TelegramSettings() {
  const status = trpc.telegram.status.useQuery();
  const link = trpc.telegram.link.useMutation();
  const unlink = trpc.telegram.unlink.useMutation();
  return <TelegramCard status={status} link={link} unlink={unlink} whose="your account" />;
}

/** The admin panel's Telegram tab: the admin's own chat (for /giveaway) and the broadcast. */
export function AdminTelegram() {
  const status = trpc.admin.telegramStatus.useQuery();
  const link = trpc.admin.telegramLink.useMutation();
  const unlink = trpc.admin.telegramUnlink.useMutation();
  return (
    <div className="stack">
      <TelegramCard status={status} link={link} unlink={unlink} whose="the shop" />
      <Broadcast />
    </div>
  );
}

function Broadcast() {
  const send = trpc.admin.telegramBroadcast.useMutation();
  const form = useForm<TelegramBroadcastInput>({ resolver: zodResolver(telegramBroadcastInput), defaultValues: { text: '' }, mode: 'onSubmit' });
  const [done, setDone] = useState<string | null>(null);
  const error = form.formState.errors.text?.message ?? form.formState.errors.root?.message;
  const onValid = async (data: TelegramBroadcastInput) => {
    setDone(null);
    try {
      const r = await send.mutateAsync(data);
      setDone(`Sent to ${r.sent} linked chat${r.sent === 1 ? '' : 's'}.`);
      form.reset({ text: '' });
    } catch (err) {
      form.setError('root', { message: errorMessage(err, 'The broadcast failed') });
    }
  };
  return (
    <Card title="Broadcast" description="One message to every linked Telegram chat. It is recorded in the audit log.">
      <form className="form" onSubmit={(e) => void form.handleSubmit(onValid)(e)} noValidate aria-label="Broadcast">
        <div className="field">
          <label htmlFor="broadcast-text">Message</label>
          <textarea id="broadcast-text" rows={4} maxLength={TELEGRAM_MESSAGE_MAX} {...form.register('text')} aria-invalid={Boolean(error) || undefined} />
        </div>
        {error && <Alert kind="error">{error}</Alert>}
        {done && <Alert kind="success">{done}</Alert>}
        <Button type="submit" loading={send.isPending}>
          Send to all linked chats
        </Button>
      </form>
    </Card>
  );
}
