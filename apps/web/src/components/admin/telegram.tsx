/** The admin panel's Telegram tab: the admin's own chat (for /giveaway) and the broadcast. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Trans, useTranslation } from 'react-i18next';
import { telegramBroadcastInput, TELEGRAM_MESSAGE_MAX, type TelegramBroadcastInput } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { fmt } from '../../lib/format';
import { trpc } from '../../trpc';
import { TelegramCard, type TelegramCardWords } from '../telegram-settings';
import { Alert, Button, Card } from '../ui';

export function AdminTelegram() {
  const { t } = useTranslation('admin');
  const status = trpc.admin.telegramStatus.useQuery();
  const link = trpc.admin.telegramLink.useMutation();
  const unlink = trpc.admin.telegramUnlink.useMutation();
  const words: TelegramCardWords = {
    title: t('telegram.connectTitle'),
    description: t('telegram.connectDescription'),
    notSetUp: t('telegram.notSetUp'),
    linked: (chatId, since) => <Trans t={t} i18nKey="telegram.linked" values={{ chat: chatId, since }} components={{ strong: <strong /> }} />,
    unlink: t('telegram.unlink'),
    connect: t('telegram.connect'),
    open: (anchor) => <Trans t={t} i18nKey="telegram.open" components={{ link: anchor }} />,
    pressedStart: t('telegram.pressedStart'),
    linkFailed: t('telegram.linkFailed'),
    unlinkFailed: t('telegram.unlinkFailed'),
  };
  return (
    <div className="stack">
      <TelegramCard status={status} link={link} unlink={unlink} words={words} day={(d) => fmt.date(d)} />
      <Broadcast />
    </div>
  );
}

function Broadcast() {
  const { t } = useTranslation('admin');
  const send = trpc.admin.telegramBroadcast.useMutation();
  const form = useForm<TelegramBroadcastInput>({ resolver: zodResolver(telegramBroadcastInput), defaultValues: { text: '' }, mode: 'onSubmit' });
  const [done, setDone] = useState<string | null>(null);
  const error = form.formState.errors.text?.message ?? form.formState.errors.root?.message;
  const onValid = async (data: TelegramBroadcastInput) => {
    setDone(null);
    try {
      const r = await send.mutateAsync(data);
      setDone(t('telegram.sent', { count: r.sent }));
      form.reset({ text: '' });
    } catch (err) {
      form.setError('root', { message: errorMessage(err, t('telegram.broadcastFailed')) });
    }
  };
  return (
    <Card title={t('telegram.broadcastTitle')} description={t('telegram.broadcastDescription')}>
      <form className="form" onSubmit={(e) => void form.handleSubmit(onValid)(e)} noValidate aria-label={t('telegram.broadcastTitle')}>
        <div className="field">
          <label htmlFor="broadcast-text">{t('telegram.message')}</label>
          <textarea id="broadcast-text" rows={4} maxLength={TELEGRAM_MESSAGE_MAX} {...form.register('text')} aria-invalid={Boolean(error) || undefined} />
        </div>
        {error && <Alert kind="error">{error}</Alert>}
        {done && <Alert kind="success">{done}</Alert>}
        <Button type="submit" loading={send.isPending}>
          {t('telegram.send')}
        </Button>
      </form>
    </Card>
  );
}
