/**
 * Settings, Top Up and Billing in Russian and Portuguese (issue 51 items 1-2): the sections, cards
 * and buttons translated, figures in the language's formats (GB, money, dates), the audit log's
 * sentences in the language, no raw catalogue key and nothing wider than a phone's screen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { DEFAULT_ORDER_GB, DEFAULT_PRICING, orderTotalCents } from '@proxyhub/core';
import { formatCents, formatGbFor, type Locale } from '@proxyhub/core/i18n';
import { addCredits } from '@proxyhub/testing';
import { mintCodes, logIn, signUpAndLogIn, startE2E, VIEWPORTS, type E2E, type SessionUser } from './harness';
import { showAccountIn, useLocale } from './route-sweep';

let e2e: E2E;
let credentials: { email: string; password: string };

beforeAll(async () => {
  e2e = await startE2E();
  const first = await e2e.newPage();
  credentials = await signUpAndLogIn(e2e, first, 'Zed Quixote');
  const user = await first.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: SessionUser }).user);
  await first.context().close();
  await addCredits(e2e.server, user.id, 3n << 30n);
});
afterAll(() => e2e?.close());

/** A catalogue key left on screen ("apiKeys.title", "billing:history.card"). */
const RAW_KEY =
  /\b(?:settings|billing):[a-z]\w*\.|\b(?:words|sections|apiKey|apiKeys|proxyPassword|batch|allowlist|alerts|telegram|webhooks|twoFactor|password|profile|gifts|referrals|deleteAccount|team|audit|topup|plans|crypto|redeem|history|statements|subscriptions)\.[a-z]\w*/;

async function screenText(page: Page): Promise<string> {
  const text = await page.locator('main').innerText();
  expect(text).not.toMatch(RAW_KEY);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
  expect(wide, `${page.url()} is wider than the window`).toBe(false);
  return text;
}

const WORDS = {
  ru: {
    settings: 'Настройки',
    sections: { security: 'Двухфакторный вход', notifications: 'Оповещения о балансе', account: 'Подарочные коды', team: 'Команда', audit: 'Журнал действий' },
    apiKeys: 'Создать API-ключ',
    giftAmount: 'Объём подарка (GB)',
    makeGift: 'Создать код',
    giftMade: /Подарочный код \w+ на 0,5 GB готов/,
    giftStatus: 'Не активирован',
    auditGift: 'Zed Quixote: создан подарочный код',
    topup: 'Пополнение',
    pay: 'Оплатить',
    billing: 'Платежи',
    history: 'История',
    kind: 'Корректировка',
    redeemField: 'Код пополнения',
    redeem: 'Активировать',
    redeemed: 'Код активирован: 512 МБ (0,50 ГБ)',
    lines: ['Корректировка баланса', /Подарочный код \w+ создан/],
  },
  'pt-BR': {
    settings: 'Configurações',
    sections: {
      security: 'Login em duas etapas',
      notifications: 'Alertas de saldo baixo',
      account: 'Códigos de presente',
      team: 'Equipe',
      audit: 'Registro de auditoria',
    },
    apiKeys: 'Criar chave de API',
    giftAmount: 'Valor do presente (GB)',
    makeGift: 'Criar código de presente',
    giftMade: /O código de presente \w+ de 0,5 GB está pronto/,
    giftStatus: 'Não resgatado',
    auditGift: 'Zed Quixote criou o código de presente',
    topup: 'Recarregar',
    pay: 'Pagar',
    billing: 'Cobrança',
    history: 'Histórico',
    kind: 'Ajuste',
    redeemField: 'Código de recarga',
    redeem: 'Resgatar código',
    redeemed: 'Resgatado com sucesso: 512 MB (0,50 GB)',
    lines: ['Ajuste de saldo', /Código de presente \w+ criado/],
  },
} as const;

describe('Settings, Top Up and Billing in other languages', () => {
  for (const locale of ['ru', 'pt-BR'] as const satisfies Locale[]) {
    it(locale, async () => {
      const w = WORDS[locale];
      const ctx = await e2e.newContext({ locale });
      const page = await ctx.newPage();
      await page.setViewportSize(VIEWPORTS.phone);
      await useLocale(page, e2e.baseUrl, 'en');
      await logIn(page, credentials.email, credentials.password);
      await showAccountIn(page, e2e.baseUrl, locale);

      await page.goto('/api');
      await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe(w.settings);
      await page.getByRole('button', { name: w.apiKeys }).waitFor();
      await screenText(page);
      for (const [section, title] of Object.entries(w.sections)) {
        await page.goto(`/api?section=${section}`);
        await page.getByText(title, { exact: true }).first().waitFor();
        await screenText(page);
      }

      // A gift code: the form, its notice and its row in the language, then its audit sentence.
      await page.goto('/api?section=account');
      await page.getByLabel(w.giftAmount).fill('0.5');
      await page.getByRole('button', { name: w.makeGift }).click();
      await expect.poll(() => page.getByTestId('gift-made').innerText()).toMatch(w.giftMade);
      await expect.poll(() => page.getByTestId('gift-row').first().innerText()).toContain(w.giftStatus);
      await page.goto('/api?section=audit');
      await expect.poll(() => page.getByTestId('audit-entry').first().innerText()).toContain(w.auditGift);
      await screenText(page);

      // Top Up: the balance in the language's GB, the default order's price in its money format.
      await page.goto('/topup');
      await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe(w.topup);
      const credits = await page.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: SessionUser & { credits: string } }).user.credits);
      await expect.poll(() => page.getByTestId('balance').innerText()).toBe(formatGbFor(locale, credits));
      const total = formatCents(locale, orderTotalCents(DEFAULT_PRICING, DEFAULT_ORDER_GB));
      expect(await page.getByTestId('order-total').innerText()).toBe(total);
      expect(await page.getByRole('button', { name: new RegExp(w.pay) }).innerText()).toContain(total);
      await screenText(page);
      // A code redeemed: the server's message in the language, with the GB beside the MB.
      const code = (await mintCodes(e2e, 0.5))[0]!;
      await page.getByLabel(w.redeemField).fill(code);
      await page.getByRole('button', { name: w.redeem, exact: true }).click();
      await page.getByText(w.redeemed).waitFor();

      // Billing: the history's headings, entry types and lines (the adjustment, the gift code made
      // above), dates in the language's order.
      await page.goto('/billing');
      await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe(w.billing);
      await expect.poll(() => page.getByTestId('billing-table').innerText()).toContain(w.kind);
      const lines = await page.getByTestId('billing-table').innerText();
      expect(lines).toContain(w.lines[0]);
      expect(lines).toMatch(w.lines[1]);
      const text = await screenText(page);
      expect(text).toContain(w.history);
      expect(text).toMatch(locale === 'ru' ? /\d{2}\.\d{2}\.\d{4}/ : /\d{2}\/\d{2}\/\d{4}/);
      await ctx.close();
    });
  }
});
