/**
 * The public site and the sign-in screens in the visitor's language: Russian and Chinese (and
 * Spanish for the price list) from the browser's languages, with the headings and buttons in that
 * language, figures in its conventions, `<html lang>` following it and no catalogue key showing;
 * the header's language menu switching an English page to Portuguese, kept across a reload by the
 * cookie; the Russian pages fitting a phone's width.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { VIEWPORTS, startE2E, type E2E } from './harness';

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
  // A volume tier, so the price list shows a grouped figure ("10 000 ГБ").
  await e2e.internal.admin.setPricing.mutate({ pricePerGbCents: 90, minOrderCents: 1000, tiers: [{ minGb: 10_000, pricePerGbCents: 80 }] });
});
afterAll(async () => {
  await e2e?.close();
});

/** Money and numbers as Intl writes them in `locale` (what the page must show). */
const usd = (locale: string, dollars: number) => new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD' }).format(dollars);
const gb = (locale: string, n: number) => new Intl.NumberFormat(locale, { style: 'unit', unit: 'gigabyte' }).format(n);

async function openIn(locale: string): Promise<Page> {
  const ctx = await e2e.newContext({ locale });
  return ctx.newPage();
}

const heading = (page: Page, name: string, level = 1) => page.getByRole('heading', { name, level, exact: true }).waitFor();
const bodyText = (page: Page) => page.locator('body').innerText();

/** A catalogue key left on screen ("public:nav.pricing", "landing.getStarted") or English the page should not show. */
async function expectNoRawKeys(page: Page) {
  const text = await bodyText(page);
  expect(text).not.toMatch(/\b(common|public|auth):[a-zA-Z]/);
  expect(text).not.toMatch(/\b(nav|landing|pricing|locations|status|quality|login|verify|reset|forgot|plans|pager|shell)\.[a-z][a-zA-Z]+\b/);
}

describe('public pages in the browser language', () => {
  it('Russian: landing, sign in and create account, pricing, locations and status', async () => {
    const page = await openIn('ru-RU');
    await page.goto('/');
    await heading(page, 'ProxyHub');
    expect(await page.locator('html').getAttribute('lang')).toBe('ru');
    expect(await page.title()).toBe('Резидентные прокси · ProxyHub');
    expect(await page.getByTestId('hero-price').innerText()).toContain(usd('ru', 0.9));
    expect(await page.getByRole('link', { name: '10+ стран' }).getAttribute('href')).toBe('/locations');
    const landing = await bodyText(page);
    expect(landing).toContain('Платите только за использованный трафик');
    expect(landing).toContain(gb('ru', 10_000));
    expect(landing).not.toContain('Get Started');
    await expectNoRawKeys(page);

    await page.getByRole('link', { name: 'Начать' }).click();
    await heading(page, 'Создать аккаунт');
    await page.getByLabel('Имя и фамилия').waitFor();
    expect(await page.title()).toBe('Создать аккаунт · ProxyHub');
    await expectNoRawKeys(page);
    await page.locator('.auth-switch').getByRole('button', { name: 'Войти' }).click();
    await heading(page, 'Войти');
    await page.getByLabel('Пароль').waitFor();
    expect(await page.getByRole('link', { name: 'Забыли пароль?' }).getAttribute('href')).toBe('/forgot-password');
    expect(await bodyText(page)).toContain(`Резидентные прокси по ${usd('ru', 0.9)} за ГБ`);
    await expectNoRawKeys(page);

    await page.getByRole('navigation', { name: 'Сайт', exact: true }).getByRole('link', { name: 'Цены' }).click();
    await heading(page, 'Цены');
    expect(await page.getByTestId('price-per-gb').innerText()).toBe(usd('ru', 0.9));
    expect(await page.getByTestId('min-order').innerText()).toBe(`12 ГБ за ${usd('ru', 10.8)}`);
    expect(await page.getByTestId('price-tiers').innerText()).toContain(gb('ru', 10_000));
    expect(await bodyText(page)).toContain(`1 ГБ = ${new Intl.NumberFormat('ru').format(1_073_741_824)} байт`);
    await expectNoRawKeys(page);

    await page.goto('/locations');
    await heading(page, 'Локации');
    const rows = page.locator('[data-testid="locations-table"] tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(10);
    const count = await rows.count();
    const few = [2, 3, 4].includes(count % 10) && ![12, 13, 14].includes(count % 100);
    expect(await page.getByTestId('country-count').innerText()).toBe(`${few ? 'Доступны' : 'Доступно'} ${count} ${few ? 'страны' : 'стран'}.`);
    expect(await page.locator('[data-country="US"] td').first().innerText()).toBe('Соединенные Штаты (US)');
    await expectNoRawKeys(page);

    await page.goto('/status');
    await heading(page, 'Статус');
    const now = await page.getByTestId('status-now').locator('h2').innerText();
    expect(['Все системы работают', 'Частичный сбой: некоторые шлюзы недоступны', 'Прокси-сервис недоступен']).toContain(now);
    await heading(page, 'Измеренное качество по странам', 2);
    expect(await bodyText(page)).toContain('Доступность за последние 90 дней');
    await expectNoRawKeys(page);
  });

  it('Chinese: the same pages in Simplified Chinese', async () => {
    const page = await openIn('zh-CN');
    await page.goto('/');
    await heading(page, 'ProxyHub');
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
    expect(await page.getByRole('link', { name: '立即开始' }).getAttribute('href')).toBe('/login?mode=register');
    expect(await bodyText(page)).toContain('只为实际使用的流量付费');
    await expectNoRawKeys(page);

    await page.goto('/login');
    await heading(page, '登录');
    await page.getByLabel('密码').waitFor();
    await page.locator('.auth-switch').getByRole('button', { name: '注册账户' }).click();
    await heading(page, '注册账户');
    await page.getByLabel('姓名').waitFor();
    await expectNoRawKeys(page);

    await page.goto('/pricing');
    await heading(page, '价格');
    expect(await page.getByTestId('min-order').innerText()).toBe(`12 GB（${usd('zh-CN', 10.8)}）`);
    await expectNoRawKeys(page);

    await page.goto('/locations');
    await heading(page, '地区');
    expect(await page.getByTestId('country-count').innerText()).toMatch(/^当前提供 \d+ 个国家。$/);
    await expectNoRawKeys(page);

    await page.goto('/status');
    await heading(page, '服务状态');
    await expect.poll(() => bodyText(page)).toContain('过去 90 天可用率');
    await expectNoRawKeys(page);
  });

  it('Spanish: the price list', async () => {
    const page = await openIn('es-ES');
    await page.goto('/pricing');
    await heading(page, 'Precios');
    expect(await page.locator('html').getAttribute('lang')).toBe('es');
    expect(await page.getByTestId('min-order').innerText()).toBe(`12 GB por ${usd('es', 10.8)}`);
    expect(await page.getByRole('columnheader', { name: 'Pedido a partir de' }).count()).toBe(1);
    await expectNoRawKeys(page);
  });

  it("the header's language menu switches an English page to Portuguese, and the choice survives a reload", async () => {
    const page = await openIn('en-US');
    await page.goto('/pricing');
    await heading(page, 'Pricing');
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    await page.locator('.site-header').getByLabel('Language').selectOption('pt-BR');
    await heading(page, 'Preços');
    expect(await page.locator('html').getAttribute('lang')).toBe('pt-BR');
    expect(await page.title()).toBe('Preços · ProxyHub');
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'locale')?.value).toBe('pt-BR');

    await page.reload();
    await heading(page, 'Preços');
    expect(await page.locator('html').getAttribute('lang')).toBe('pt-BR');
    expect(await page.locator('.site-header').getByLabel('Idioma').inputValue()).toBe('pt-BR');
    await expectNoRawKeys(page);
  });

  it('the Russian pages fit a 390x844 screen', async () => {
    const page = await openIn('ru-RU');
    await page.setViewportSize(VIEWPORTS.phone);
    for (const [path, title] of [
      ['/', 'ProxyHub'],
      ['/login', 'Войти'],
      ['/login?mode=register', 'Создать аккаунт'],
      ['/forgot-password', 'Восстановление пароля'],
      ['/pricing', 'Цены'],
      ['/locations', 'Локации'],
      ['/status', 'Статус'],
      ['/statements', 'Проверка подписанной выписки'],
    ] as const) {
      await page.goto(path);
      await heading(page, title);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect({ path, overflow }).toEqual({ path, overflow: 0 });
    }
  });
});
