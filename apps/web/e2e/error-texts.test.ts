/**
 * Error texts in the reader's language: a server answer (a wrong password on sign-in, shown by its
 * code) and a shared schema's message on a field (an empty email, found by describeError), in
 * Russian and Spanish; English shows the spec's words as before. The sign-in form is found by its
 * fields' names, not its labels, which other languages translate. The server's success messages
 * (signing up, verifying the address) likewise, found by their English text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { STRONG_PASSWORD, fieldErrors, startE2E, uniqueEmail, type E2E } from './harness';

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
});
afterAll(async () => {
  await e2e?.close();
});

const submit = (page: Page) => page.locator('form button[type="submit"]').first().click();
const alertText = async (page: Page) => (await page.getByRole('alert').allInnerTexts()).join(' ');

/** Sign-in with nothing typed, then with a wrong password: the field messages, then the answer's text. */
async function signInErrors(locale: string) {
  const page = await (await e2e.newContext({ locale })).newPage();
  await page.goto('/login');
  await page.locator('input[name="email"]').waitFor();
  await submit(page);
  await expect.poll(() => fieldErrors(page)).toHaveLength(2);
  const fields = await fieldErrors(page);
  await page.locator('input[name="email"]').fill(uniqueEmail('nobody'));
  await page.locator('input[name="password"]').fill('Wrong-Pass-123');
  await submit(page);
  await expect.poll(() => alertText(page)).not.toBe('');
  const answer = await alertText(page);
  const body = await page.locator('body').innerText();
  await page.context().close();
  return { fields, answer, body };
}

describe('error texts in the reader’s language', () => {
  it('Russian: the schema’s messages and the server’s answer', async () => {
    const { fields, answer, body } = await signInErrors('ru-RU');
    expect(fields).toEqual(['Введите email', 'Введите пароль']);
    expect(answer).toContain('Неверный email или пароль');
    expect(answer).not.toContain('Invalid email or password');
    expect(body).not.toMatch(/errors:|[A-Z]+_[A-Z_]+/);
  });

  it('Spanish: the schema’s messages and the server’s answer', async () => {
    const { fields, answer, body } = await signInErrors('es-ES');
    expect(fields).toEqual(['El correo electrónico es obligatorio', 'La contraseña es obligatoria']);
    expect(answer).toContain('Correo o contraseña incorrectos');
    expect(body).not.toMatch(/errors:|[A-Z]+_[A-Z_]+/);
  });

  it('English: the spec’s words, as they came', async () => {
    const { fields, answer } = await signInErrors('en-US');
    expect(fields).toEqual(['Email is required', 'Password is required']);
    expect(answer).toContain('Invalid email or password');
  });

  it('Russian: the server’s success messages on signing up and verifying; English as they came', async () => {
    for (const [locale, registered, verified] of [
      ['ru-RU', 'Регистрация прошла успешно. Проверьте почту, чтобы подтвердить аккаунт.', 'Почта подтверждена. Теперь можно войти.'],
      ['en-US', 'Registration successful. Please check your email to verify your account.', 'Email verified successfully. You can now sign in.'],
    ] as const) {
      const page = await (await e2e.newContext({ locale })).newPage();
      const email = uniqueEmail('notice');
      await page.goto('/login?mode=register');
      await page.locator('input[name="name"]').fill('Ivan Notice');
      await page.locator('input[name="email"]').fill(email);
      await page.locator('input[name="password"]').fill(STRONG_PASSWORD);
      await submit(page);
      await expect.poll(() => page.locator('main, body').first().innerText()).toContain(registered);
      await page.goto(await e2e.mailLink(email, '/verify-email'));
      await expect.poll(() => page.locator('body').innerText()).toContain(verified);
      await page.context().close();
    }
  });
});
