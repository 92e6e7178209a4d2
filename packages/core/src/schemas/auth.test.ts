import { describe, expect, it } from 'vitest';
import { createCodesInput, cryptoPaymentInput, redeemCodeInput } from './credits';
import { loginInput, registerInput, resetPasswordForm, verifyEmailInput } from './auth';
import { DEFAULT_PRICING, minOrderGb, minOrderMessage } from '../pricing';

const firstMessage = (r: { success: boolean; error?: { issues: { message: string }[] } }) => r.error?.issues[0]?.message;

describe('spec validation messages', () => {
  it('registration', () => {
    const ok = { email: ' A@B.co ', password: 'Secret123', name: 'Al' };
    expect(registerInput.parse(ok).email).toBe('a@b.co');
    expect(firstMessage(registerInput.safeParse({ ...ok, email: '' }))).toBe('Email is required');
    expect(firstMessage(registerInput.safeParse({ ...ok, email: undefined }))).toBe('Email is required');
    expect(firstMessage(registerInput.safeParse({ ...ok, email: 'nope' }))).toBe('Please enter a valid email address');
    expect(firstMessage(registerInput.safeParse({ ...ok, password: '' }))).toBe('Password is required');
    expect(firstMessage(registerInput.safeParse({ ...ok, password: 'Ab1' }))).toBe('Password must be at least 8 characters');
    expect(firstMessage(registerInput.safeParse({ ...ok, password: 'abcdefgh1' }))).toBe(
      'Password must contain at least one lowercase letter, one uppercase letter, and one number',
    );
    expect(firstMessage(registerInput.safeParse({ ...ok, name: ' ' }))).toBe('Name is required');
    expect(firstMessage(registerInput.safeParse({ ...ok, name: 'A' }))).toBe('Name must be at least 2 characters');
  });
  it('login only needs presence', () => {
    expect(loginInput.safeParse({ email: 'a@b.co', password: 'x' }).success).toBe(true);
    expect(firstMessage(loginInput.safeParse({ email: 'a@b.co' }))).toBe('Password is required');
  });
  it('reset form', () => {
    expect(firstMessage(resetPasswordForm.safeParse({ password: 'Secret123', confirmPassword: '' }))).toBe('Please confirm your password');
    expect(firstMessage(resetPasswordForm.safeParse({ password: 'Secret123', confirmPassword: 'Secret124' }))).toBe('Passwords do not match');
  });
  it('verify token', () => {
    expect(firstMessage(verifyEmailInput.safeParse({}))).toBe('Invalid verification link. Please check your email for the correct link.');
  });
  it('credits', () => {
    expect(redeemCodeInput.parse({ code: ' abc ' }).code).toBe('ABC');
    expect(firstMessage(redeemCodeInput.safeParse({ code: '   ' }))).toBe('Please enter a code');
    // The minimum comes from the operator's price list (checked by the server); at the spec's prices:
    expect(minOrderGb(DEFAULT_PRICING)).toBe(12);
    expect(minOrderMessage(DEFAULT_PRICING)).toBe('Minimum order is 12GB ($10)');
    expect(firstMessage(cryptoPaymentInput.safeParse({ gbAmount: 0, priceUsd: 10 }))).toBeDefined();
    expect(createCodesInput.safeParse({ creditsGB: 0.3, quantity: 1, expiresAt: null }).success).toBe(true);
    expect(createCodesInput.safeParse({ creditsGB: 0.35, quantity: 1, expiresAt: null }).success).toBe(false);
    expect(firstMessage(createCodesInput.safeParse({ creditsGB: 1, quantity: 1, expiresAt: '2000-01-01T00:00' }))).toBe('Expiry must be in the future');
    // The largest date JavaScript has, as a string and as a Date (superjson), is out of range.
    expect(firstMessage(createCodesInput.safeParse({ creditsGB: 1, quantity: 1, expiresAt: '+275760-09-13T00:00:00.000Z' }))).toBe(
      'Expiry must be before the year 10000',
    );
    expect(firstMessage(createCodesInput.safeParse({ creditsGB: 1, quantity: 1, expiresAt: new Date(8.64e15) }))).toBe('Expiry must be before the year 10000');
    expect(createCodesInput.safeParse({ creditsGB: 1, quantity: 1, expiresAt: '9999-12-31T23:59:59.999Z' }).success).toBe(true);
  });
});
