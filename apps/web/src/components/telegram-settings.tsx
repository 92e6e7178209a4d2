import { useState, type ReactElement, type ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { errorMessage } from '../lib/errors';
import { fmt } from '../lib/format';
import { trpc } from '../trpc';
import { Alert, Button, Card } from './ui';

interface LinkStatus {
  enabled: boolean;
  botUsername: string | null;
  chat: { chatId: number; linkedAt: string } | null;
}

/** The card's words, from whoever shows it (Settings, the admin panel's Telegram tab), in their language. */
export interface TelegramCardWords {
  title: string;
  description: string;
  notSetUp: string;
  /** "Linked to Telegram chat <strong>4242</strong> since 11/28/2026." */
  linked: (chatId: number, since: string) => ReactNode;
  unlink: string;
  connect: string;
  /** "Open <a>url</a> and press Start in Telegram (valid 10 minutes, once)." */
  open: (link: ReactElement) => ReactNode;
  pressedStart: string;
  linkFailed: string;
  unlinkFailed: string;
}

export interface TelegramCardProps {
  status: { data?: LinkStatus | undefined; refetch(): Promise<unknown> };
  link: { mutateAsync(): Promise<{ code: string; url: string }>; isPending: boolean };
  unlink: { mutateAsync(): Promise<unknown>; isPending: boolean };
  words: TelegramCardWords;
  /** The link date in the language on show. */
  day: (d: string) => string;
}

/** "Connect Telegram": a one-time link (10 minutes) that opens the bot; once linked, the chat and Unlink. */
export function TelegramCard({ status, link, unlink, words, day }: TelegramCardProps) {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const s = status.data;
  async function onConnect() {
    setError(null);
    try {
      setUrl((await link.mutateAsync()).url);
    } catch (err) {
      setError(errorMessage(err, words.linkFailed));
    }
  }
  async function onUnlink() {
    setError(null);
    try {
      await unlink.mutateAsync();
      setUrl(null);
      await status.refetch();
    } catch (err) {
      setError(errorMessage(err, words.unlinkFailed));
    }
  }
  return (
    <Card title={words.title} description={words.description}>
      {error && <Alert kind="error">{error}</Alert>}
      {s && !s.enabled && <p className="muted">{words.notSetUp}</p>}
      {s?.enabled && s.chat && (
        <div className="inline-form">
          <p data-testid="telegram-linked">{words.linked(s.chat.chatId, day(s.chat.linkedAt))}</p>
          <Button variant="secondary" onClick={() => void onUnlink()} loading={unlink.isPending}>
            {words.unlink}
          </Button>
        </div>
      )}
      {s?.enabled && !s.chat && (
        <div className="stack">
          <Button onClick={() => void onConnect()} loading={link.isPending}>
            {words.connect}
          </Button>
          {url && (
            <p data-testid="telegram-link">
              {words.open(
                <a href={url} target="_blank" rel="noreferrer">
                  {url}
                </a>,
              )}{' '}
              <Button variant="secondary" onClick={() => void status.refetch()}>
                {words.pressedStart}
              </Button>
            </p>
          )}
        </div>
      )}
    </Card>
  );
}

export function TelegramSettings() {
  const { t } = useTranslation('settings');
  const status = trpc.telegram.status.useQuery();
  const link = trpc.telegram.link.useMutation();
  const unlink = trpc.telegram.unlink.useMutation();
  const words: TelegramCardWords = {
    title: t('telegram.title'),
    description: t('telegram.descriptionAccount'),
    notSetUp: t('telegram.notSetUp'),
    linked: (chat, date) => <Trans t={t} i18nKey="telegram.linked" values={{ chat, date }} components={{ chat: <strong /> }} />,
    unlink: t('telegram.unlink'),
    connect: t('telegram.connect'),
    open: (anchor) => (
      <>
        {t('telegram.open')} {anchor} {t('telegram.pressStart')}
      </>
    ),
    pressedStart: t('telegram.pressed'),
    linkFailed: t('telegram.linkFailed'),
    unlinkFailed: t('telegram.unlinkFailed'),
  };
  return <TelegramCard status={status} link={link} unlink={unlink} words={words} day={(d) => fmt.date(d)} />;
}
