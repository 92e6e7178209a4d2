/**
 * The admin panel read in Russian and Spanish (issue 51 items 1-2): the frame, the Users table and
 * a user's detail in the language, figures and dates in its format, and no raw catalogue key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { formatDate } from '@proxyhub/core/i18n';
import { adminLogIn, startE2EWithUser, type E2E, type SessionUser } from './harness';
import { fitsWidth, rawKeys, settle, useLocale } from './route-sweep';

let e2e: E2E;
let user: SessionUser;

beforeAll(async () => {
  ({ e2e, user } = await startE2EWithUser('Rosa Admin-Test'));
});
afterAll(() => e2e?.close());

/** A page signed in at /admin in `locale` (the login itself in English, as the harness knows it). */
async function adminIn(locale: 'ru' | 'es'): Promise<Page> {
  const ctx = await e2e.newContext({ locale });
  const page = await ctx.newPage();
  await useLocale(page, e2e.baseUrl, 'en');
  await adminLogIn(page);
  await useLocale(page, e2e.baseUrl, locale);
  await page.goto('/admin');
  return page;
}

describe('the admin panel in Russian and Spanish', () => {
  it('a Russian admin sees the frame, the Users table and a user translated, dates in the Russian format', async () => {
    const page = await adminIn('ru');
    await page.getByRole('heading', { name: 'Панель администратора' }).waitFor();
    await page.getByRole('button', { name: 'Выйти' }).waitFor();
    expect(await page.locator('.admin-bar .language-picker select').inputValue()).toBe('ru');
    // The bar with the language menu fits a phone.
    await settle(page);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await fitsWidth(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('tab', { name: /Пользователи/ }).click();
    const table = page.getByTestId('users-table');
    await page.getByLabel('Поиск пользователей').fill(user.proxyUserId);
    await expect.poll(() => table.innerText()).toContain('Подтверждён');
    // The heads as written (the table's style shows them in capitals).
    expect(await table.locator('th').first().textContent()).toBe('Эл. почта');
    const text = await table.innerText();
    expect(text).toContain(formatDate('ru', new Date()));
    expect(text).toMatch(/0,00\sГБ/);
    await table.getByRole('button').first().click();
    const detail = page.getByTestId('admin-user-detail');
    await detail.waitFor();
    const detailText = await detail.innerText();
    expect(detailText).toContain('К пользователям');
    expect(detailText).toContain('Трафик за 30 дней');
    expect(detailText).toContain(`с нами с ${formatDate('ru', new Date())}`);
    expect(await page.getByTestId('admin-user-status').innerText()).toBe('Активен');
    expect(await rawKeys(page)).toEqual([]);
  });

  it('a Spanish admin sees the codes generator and the pricing tab in Spanish, money in its format', async () => {
    const page = await adminIn('es');
    await page.getByRole('heading', { name: 'Panel de administración' }).waitFor();
    await page.getByRole('heading', { name: 'Generar códigos de recarga' }).waitFor();
    await page.getByRole('tab', { name: 'Precios', exact: true }).click();
    const inForce = page.getByTestId('pricing-in-force');
    await expect.poll(() => inForce.innerText()).toMatch(/^Vigentes: .*\d,\d{2}\s?US\$ por GB/);
    expect(await rawKeys(page)).toEqual([]);
  });
});
