import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { BOT_TOKEN, BOT_USERNAME, FakeTelegram, textUpdate, WEBHOOK_SECRET } from '@proxyhub/testing';
import { signUpAndLogIn, startE2E, type E2E } from './harness';

let fake: FakeTelegram;
let e2e: E2E;
let page: Page;

beforeAll(async () => {
  fake = await new FakeTelegram().start();
  e2e = await startE2E({ telegram: { token: BOT_TOKEN, webhookSecret: WEBHOOK_SECRET, apiRoot: fake.url } });
  page = await e2e.newPage();
  await signUpAndLogIn(e2e, page, 'Telegram Tester');
});
afterAll(async () => {
  await e2e?.close();
  await fake?.close();
});

describe('settings: Connect Telegram', () => {
  it('gives a t.me link, shows the chat once linked, and unlinks', async () => {
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('tab', { name: 'Notifications' }).click();
    await page.getByRole('button', { name: 'Connect Telegram' }).click();
    const link = page.getByTestId('telegram-link').getByRole('link');
    await link.waitFor();
    const url = (await link.getAttribute('href'))!;
    expect(url).toMatch(new RegExp(`^https://t\\.me/${BOT_USERNAME}\\?start=[A-Za-z0-9_-]+$`));

    // What Telegram delivers when the link is opened and Start pressed.
    const code = new URL(url).searchParams.get('start')!;
    const r = await fetch(`${e2e.baseUrl}/telegram/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET },
      body: JSON.stringify(textUpdate(4242, `/start ${code}`)),
    });
    expect(r.status).toBe(200);
    expect(fake.sent(4242).join('\n')).toContain('Linked to');

    await page.getByRole('button', { name: 'I have pressed Start' }).click();
    await page.getByTestId('telegram-linked').getByText('4242').waitFor();
    await page.getByRole('button', { name: 'Unlink' }).click();
    await page.getByRole('button', { name: 'Connect Telegram' }).waitFor();
  });
});
