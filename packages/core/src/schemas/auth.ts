import { z } from 'zod';
import { INVALID_RESET_TOKEN, INVALID_VERIFY_LINK, NAME_MIN_LENGTH, PASSWORD_MIN_LENGTH } from '../constants';
import { requiredText } from './fields';

/** The spec's "simple address shape". */
export const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const emailField = requiredText('Email is required', 254, 'Email must be at most 254 characters')
  .regex(EMAIL_RE, 'Please enter a valid email address')
  .toLowerCase();

/** Login only checks presence: the stored hash decides. */
export const passwordField = z
  .string({ error: (iss) => (iss.input === undefined || iss.input === null ? 'Password is required' : 'Password must be text') })
  .min(1, 'Password is required')
  .max(256, 'Password must be at most 256 characters');

export const newPasswordField = passwordField
  .min(PASSWORD_MIN_LENGTH, 'Password must be at least 8 characters')
  .regex(/^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)/, 'Password must contain at least one lowercase letter, one uppercase letter, and one number');

/** Control characters, and the bidirectional overrides that make text read other than it is stored. */
const NAME_CONTROL_RE = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;
/** A scheme, `www.` or a host name (`label.tld`): what a mail client would make a link of. */
const NAME_LINK_RE = /([a-z][a-z0-9+.-]*:\/\/|\bwww\.|[\p{L}\p{N}-]+\.\p{L}{2,})/iu;

/** A person's name: it is shown to others (admins) and in mail, so it carries no control characters and no links. */
export const nameField = requiredText('Name is required', 100, 'Name must be at most 100 characters')
  .min(NAME_MIN_LENGTH, 'Name must be at least 2 characters')
  .refine((v) => !NAME_CONTROL_RE.test(v), 'Name must not contain control characters')
  .refine((v) => !NAME_LINK_RE.test(v), 'Name must not contain a link or web address');

export const loginInput = z.object({ email: emailField, password: passwordField });
export type LoginInput = z.infer<typeof loginInput>;

/** A referral link's code (`/login?ref=CODE`), any case; empty means none. */
export const referralCodeField = z
  .string({ error: 'Referral code must be text' })
  .trim()
  .max(20, 'Referral code must be at most 20 characters')
  .regex(/^[A-Za-z0-9]*$/, 'Referral code must be letters and digits')
  .transform((v) => (v ? v.toUpperCase() : undefined))
  .optional();

export const registerInput = z.object({ email: emailField, password: newPasswordField, name: nameField, referralCode: referralCodeField });
export type RegisterInput = z.infer<typeof registerInput>;

export const emailInput = z.object({ email: emailField });
export const forgotPasswordInput = emailInput;
export const resendVerificationInput = emailInput;

export const verifyEmailInput = z.object({ token: requiredText(INVALID_VERIFY_LINK, 256, INVALID_VERIFY_LINK) });

export const resetPasswordInput = z.object({
  token: requiredText(INVALID_RESET_TOKEN, 256, INVALID_RESET_TOKEN),
  password: newPasswordField,
});

/** GET /auth/reset-password/check: the reset page asks whether its link still works before any typing. */
export const resetTokenCheckInput = resetPasswordInput.pick({ token: true });

/** The reset form adds a confirmation the server never sees. */
export const resetPasswordForm = z
  .object({
    password: newPasswordField,
    confirmPassword: z.string().min(1, 'Please confirm your password'),
  })
  .refine((v) => v.password === v.confirmPassword, { message: 'Passwords do not match', path: ['confirmPassword'] });

export const adminLoginInput = z.object({
  username: requiredText('Username is required', 64),
  password: passwordField,
});
