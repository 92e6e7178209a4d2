import { useState, type ReactElement, type ReactNode } from 'react';
import { errorMessage } from '../lib/errors';
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

/** Settings' card (its words are the settings screen's to translate). */
const SETTINGS_WORDS: TelegramCardWords = {
  title: 'Connect Telegram',
  description: "Check your balance, redeem codes, top up and get proxy lists in Telegram, and get your account's notifications there.",
  notSetUp: 'The Telegram bot is not set up on this server.',
  linked: (chatId, since) => (
    <>
      Linked to Telegram chat <strong>{chatId}</strong> since {since}.
    </>
  ),
  unlink: 'Unlink',
  connect: 'Connect Telegram',
  open: (link) => <>Open {link} and press Start in Telegram (valid 10 minutes, once).</>,
  pressedStart: 'I have pressed Start',
  linkFailed: 'Could not create a link',
  unlinkFailed: 'Unlinking failed',
};

export function TelegramSettings() {
  const status = trpc.telegram.status.useQuery();
  const link = trpc.telegram.link.useMutation();
  const unlink = trpc.telegram.unlink.useMutation();
  return <TelegramCard status={status} link={link} unlink={unlink} words={SETTINGS_WORDS} day={(d) => new Date(d).toLocaleDateString()} />;
}
