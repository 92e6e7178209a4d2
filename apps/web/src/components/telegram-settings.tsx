import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Trans, useTranslation } from 'react-i18next';
import { telegramBroadcastInput, TELEGRAM_MESSAGE_MAX, type TelegramBroadcastInput } from '@proxyhub/core';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
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
  /** Whose notifications the chat gets: the customer's account or the shop's (an admin). */
  whose: 'account' | 'shop';
}

/** "Connect Telegram": a one-time link (10 minutes) that opens the bot; once linked, the chat and Unlink. */
function TelegramCard({ status, link, unlink, whose }: Props) {
  const { t } = useTranslation('settings');
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const s = status.data;
  async function onConnect() {
    setError(null);
    try {
      setUrl((await link.mutateAsync()).url);
    } catch (err) {
      setError(errorMessage(err, t('telegram.linkFailed')));
    }
  }
  async function onUnlink() {
    setError(null);
    try {
      await unlink.mutateAsync();
      setUrl(null);
      await status.refetch();
    } catch (err) {
      setError(errorMessage(err, t('telegram.unlinkFailed')));
    }
  }
  return (
    <Card title={t('telegram.title')} description={t(whose === 'shop' ? 'telegram.descriptionShop' : 'telegram.descriptionAccount')}>
      {error && <Alert kind="error">{error}</Alert>}
      {s && !s.enabled && <p className="muted">{t('telegram.notSetUp')}</p>}
      {s?.enabled && s.chat && (
        <div className="inline-form">
          <p data-testid="telegram-linked">
            <Trans t={t} i18nKey="telegram.linked" values={{ chat: s.chat.chatId, date: fmt.date(s.chat.linkedAt) }} components={{ chat: <strong /> }} />
          </p>
          <Button variant="secondary" onClick={() => void onUnlink()} loading={unlink.isPending}>
            {t('telegram.unlink')}
          </Button>
        </div>
      )}
      {s?.enabled && !s.chat && (
        <div className="stack">
          <Button onClick={() => void onConnect()} loading={link.isPending}>
            {t('telegram.connect')}
          </Button>
          {url && (
            <p data-testid="telegram-link">
              {t('telegram.open')}{' '}
              <a href={url} target="_blank" rel="noreferrer">
                {url}
              </a>{' '}
              {t('telegram.pressStart')}{' '}
              <Button variant="secondary" onClick={() => void status.refetch()}>
                {t('telegram.pressed')}
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
  return <TelegramCard status={status} link={link} unlink={unlink} whose="account" />;
}

/** The admin panel's Telegram tab: the admin's own chat (for /giveaway) and the broadcast. */
export function AdminTelegram() {
  const status = trpc.admin.telegramStatus.useQuery();
  const link = trpc.admin.telegramLink.useMutation();
  const unlink = trpc.admin.telegramUnlink.useMutation();
  return (
    <div className="stack">
      <TelegramCard status={status} link={link} unlink={unlink} whose="shop" />
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
