import { z } from 'zod';
import { LOCALES } from '../i18n/locales';
import { nameField, newPasswordField, passwordField } from './auth';

/** Settings: a new password with the registration rules, proven by the current one. */
export const changePasswordInput = z.object({
  currentPassword: z
    .string({ error: (iss) => (iss.input === undefined || iss.input === null ? 'Current password is required' : 'Current password must be text') })
    .min(1, 'Current password is required')
    .max(256, 'Password must be at most 256 characters'),
  newPassword: newPasswordField,
});
export type ChangePasswordInput = z.infer<typeof changePasswordInput>;

/** The form adds a confirmation the server never sees. */
export const changePasswordForm = changePasswordInput
  .extend({ confirmPassword: z.string().min(1, 'Please confirm your password') })
  .refine((v) => v.newPassword === v.confirmPassword, { message: 'Passwords do not match', path: ['confirmPassword'] });

/** Settings: the name, with the registration rules. */
export const renameInput = z.object({ name: nameField });
export type RenameInput = z.infer<typeof renameInput>;

/** A language of the shop's (mails, the bot and the web app follow it). */
export const localeField = z.enum(LOCALES, { error: `Locale must be one of ${LOCALES.join(', ')}` });

/** `PATCH /api/account`: what is given changes (the name with the registration rules, the language). */
export const updateAccountInput = z.object({ name: nameField.optional(), locale: localeField.optional() });
export type UpdateAccountInput = z.infer<typeof updateAccountInput>;

/**
 * Deleting the account: the password proves it is the owner; an account that signs in with Google
 * only has none, so its owner types the account's email address instead.
 */
export const deleteAccountInput = z.object({
  password: passwordField.optional(),
  email: z.string().trim().max(254, 'Email must be at most 254 characters').toLowerCase().optional(),
});
export type DeleteAccountInput = z.infer<typeof deleteAccountInput>;
