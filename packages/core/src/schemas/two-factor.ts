import { z } from 'zod';
import { passwordField } from './auth';
import { requiredText } from './fields';

/** A 6-digit TOTP code or a recovery code (spaces and dashes as typed are dropped). */
export const twoFactorCodeField = requiredText('Please enter a code', 32, 'Codes are at most 32 characters').transform((v) => v.replace(/[\s-]/g, ''));

export const twoFactorEnableInput = z.object({ code: twoFactorCodeField });
export const twoFactorLoginInput = z.object({ code: twoFactorCodeField });
export const twoFactorDisableInput = z.object({ password: passwordField, code: twoFactorCodeField });
