import { z } from 'zod';
import { authMeOutput } from './auth';

/** What the `twoFactor.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const twoFactorStatusOutput = z.object({ enabled: z.boolean() });

export const twoFactorSetupOutput = z.object({ secret: z.string(), otpauthUrl: z.string(), qrCodeDataUrl: z.string() });

export const twoFactorEnableOutput = z.object({ recoveryCodes: z.array(z.string()) });

export const twoFactorDisableOutput = z.object({ success: z.literal(true) });

export const twoFactorLoginOutput = z.object({
  success: z.literal(true),
  user: authMeOutput,
});

export const twoFactorAdminSetupOutput = z.object({ secret: z.string(), otpauthUrl: z.string(), qrCodeDataUrl: z.string() });

export const twoFactorAdminEnableOutput = z.object({ recoveryCodes: z.array(z.string()) });

export const twoFactorAdminDisableOutput = z.object({ success: z.literal(true) });

export const twoFactorAdminLoginOutput = z.object({ success: z.literal(true) });
