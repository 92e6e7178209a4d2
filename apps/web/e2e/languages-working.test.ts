/**
 * The signed-in working screens in Russian and Spanish: the dashboard, the proxy generator, proxy
 * accounts and connections show their headings, buttons and table heads in the browser's language,
 * GB figures and dates in its format, no raw catalogue key, and the same proxy lines as in English
 * (languages-routes.test.ts holds every screen to the phone's width).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { GiB, type Locale } from '@proxyhub/core/i18n';
import { showAccountIn } from './route-sweep';
import { gatewayTraffic, recordBase, startE2EWithUser, type E2E, type SessionUser } from './harness';

let e2e: E2E;
let page: Page;
let user: SessionUser;
/** The generator's lines in English (the account's first language), to compare with each language's. */
let english: string[];

beforeAll(async () => {
  ({ e2e, page, user } = await startE2EWithUser('Languages Tester'));
  // 2 GB bought, half a GB used: 1.50 GB left.
  await e2e.internal.admin.adjustUserBalance.mutate({ id: user.id, deltaGB: 2, reason: 'e2e languages' });
  await gatewayTraffic(e2e, user, GiB / 2, 'US');
  const base = await recordBase(e2e, user);
  await e2e.internal.gateway.report.mutate({
    gatewayId: 'e2e-gw-languages',
    seq: 1,
    items: [],
    connections: [
      {
        ...base,
        id: randomUUID(),
        startedAt: Date.now() - 2000,
        endedAt: Date.now() - 1900,
        protocol: 'connect',
        target: 'slow.example:443',
        outcome: 'target_unreachable',
      },
      {
        ...base,
        id: randomUUID(),
        startedAt: Date.now() - 1000,
        endedAt: Date.now() - 900,
        protocol: 'socks5',
        target: 'fine.example:443',
        outcome: 'ok',
        connectMs: 1234,
      },
    ],
  });
  english = await generatedShape(page, 'Generate Proxies');
});
afterAll(() => e2e?.close());

/**
 * A page of a new browser in `browserLocale`, signed in as the file's user (its session cookie), the
 * account's language set to `lang`.
 */
async function signedInPage(browserLocale: string, lang: Locale): Promise<Page> {
  const ctx = await e2e.newContext({ locale: browserLocale });
  await ctx.addCookies(await page.context().cookies());
  const p = await ctx.newPage();
  await p.goto('/');
  await showAccountIn(p, e2e.baseUrl, lang);
  return p;
}

/** A catalogue key shown as text ("usage.byTarget", "dashboard:title") instead of its words. */
const RAW_KEY =
  /\b(dashboard|proxies|common):|\b(stats|account|units|usage|chart|hints|outcomes|burn|connections|statements|settings|duration|list|newIp|test|snippets|rules|accounts)\.[a-z][A-Za-z_]+\b/;
const mainText = (p: Page) => p.locator('main').innerText();
/** Intl's no-break and narrow no-break spaces ("1 234 мс", "100,0 %") as plain ones. */
const plain = (texts: string[]) => texts.map((t) => t.replace(/[\u00a0\u202f]/g, ' '));

/** The generated lines with each session token blanked: what the form settings decide. */
async function generatedShape(p: Page, generate: string): Promise<string[]> {
  await p.goto('/proxies');
  const button = p.getByRole('button', { name: generate, exact: true, disabled: false });
  await button.waitFor();
  await button.click();
  const rows = p.getByTestId('proxy-output').getByRole('listitem');
  await rows.first().waitFor();
  return (await rows.allInnerTexts()).map((l) => l.replace(/_[A-Z0-9]{8}:/, '_TOKEN:'));
}

const LANGUAGES = [
  {
    locale: 'ru-RU',
    lang: 'ru',
    dashboard: 'Панель',
    remaining: '1,50 ГБ',
    bought: '2,00 ГБ',
    targetHeads: ['По адресам', 'Трафик', 'Подключения', 'Успешно', 'Медиана подключения'],
    rates: ['1', '100,0 %', '1 234 мс'],
    hint: 'сайт не ответил через этот выход',
    proxies: 'Создание прокси',
    generate: 'Создать прокси',
    available: 'Доступно',
    accounts: 'Прокси-аккаунты',
    createAccount: 'Создать аккаунт',
    connections: 'Подключения',
    connectionHeads: ['Начало', 'Протокол', 'Адрес', 'Локация', 'Сессия', 'Отправлено', 'Получено', 'Оплачено', 'Результат'],
    unreachable: 'Сайт недоступен',
    // 28.11.2026, 09:30:00
    date: /^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}:\d{2}$/,
  },
  {
    locale: 'es-ES',
    lang: 'es',
    dashboard: 'Panel',
    remaining: '1,50 GB',
    bought: '2,00 GB',
    targetHeads: ['Por destino', 'Tráfico', 'Conexiones', 'Éxito', 'Conexión (mediana)'],
    rates: ['1', '100,0 %', '1234 ms'],
    hint: 'el sitio no respondió a través de esta salida',
    proxies: 'Generar proxies',
    generate: 'Generar proxies',
    available: 'Disponible',
    accounts: 'Cuentas de proxy',
    createAccount: 'Crear cuenta',
    connections: 'Conexiones',
    connectionHeads: ['Inicio', 'Protocolo', 'Destino', 'Ubicación', 'Sesión', 'Subida', 'Bajada', 'Facturado', 'Resultado'],
    unreachable: 'Sitio inaccesible',
    // 28/11/2026, 9:30:00
    date: /^\d{1,2}\/\d{1,2}\/\d{4}, \d{1,2}:\d{2}:\d{2}$/,
  },
] as const;

describe('the working screens in other languages', () => {
  it('English still shows the spec words (the lines to compare with)', async () => {
    await page.goto('/dashboard');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(await page.getByTestId('remaining-data').innerText()).toBe('1.50 GB');
    expect(await page.getByTestId('total-bought').innerText()).toBe('2.00 GB');
  });

  for (const l of LANGUAGES) {
    it(`${l.locale}: dashboard, generator, proxy accounts and connections`, async () => {
      const p = await signedInPage(l.locale, l.lang);

      await p.goto('/dashboard');
      await p.getByRole('heading', { name: l.dashboard, exact: true }).waitFor();
      expect(await p.evaluate(() => document.documentElement.lang)).toBe(l.lang);
      expect(await p.title()).toBe(`${l.dashboard} · ProxyHub`);
      expect(plain([await p.getByTestId('remaining-data').innerText()])).toEqual([l.remaining]);
      expect(plain([await p.getByTestId('total-bought').innerText()])).toEqual([l.bought]);
      const byTarget = p.getByTestId('usage-by-target');
      await expect.poll(() => byTarget.locator('th').allTextContents()).toEqual(l.targetHeads);
      expect(plain(await byTarget.locator('tbody tr', { hasText: 'fine.example' }).locator('td').allInnerTexts()).slice(2)).toEqual(l.rates);
      await expect.poll(() => p.getByTestId('usage-by-outcome').innerText()).toContain(l.hint);
      expect(await mainText(p)).not.toMatch(RAW_KEY);

      // The same lines as in English (but for each line's random session token), under translated words.
      expect(await generatedShape(p, l.generate)).toEqual(english);
      await p.getByRole('heading', { name: l.proxies, exact: true }).waitFor();
      expect(plain([await p.getByTestId('credits').innerText()])[0]).toMatch(new RegExp(`${l.available}\\s+${l.remaining}`));
      expect(await mainText(p)).not.toMatch(RAW_KEY);

      await p.goto('/proxy-accounts');
      await p.getByRole('heading', { name: l.accounts, exact: true }).waitFor();
      await p.getByRole('button', { name: l.createAccount }).waitFor();
      await p.getByTestId(`account-${user.proxyUserId}`).waitFor();
      expect(await mainText(p)).not.toMatch(RAW_KEY);

      await p.goto('/connections');
      await p.getByRole('heading', { name: l.connections, exact: true }).waitFor();
      const table = p.getByTestId('connections-table');
      await expect.poll(() => p.getByTestId('connection-row').count()).toBe(2);
      expect(await table.locator('th').allTextContents()).toEqual(l.connectionHeads);
      const slow = p.getByTestId('connection-row').filter({ hasText: 'slow.example' }).locator('td');
      expect(await slow.last().innerText()).toBe(l.unreachable);
      expect(plain([await slow.first().innerText()])[0]).toMatch(l.date);
      expect(await mainText(p)).not.toMatch(RAW_KEY);
      await p.context().close();
    });
  }
});
