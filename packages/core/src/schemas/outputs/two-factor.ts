import { z } from 'zod';

/** What the `twoFactor.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const twoFactorStatusOutput = z.object({ enabled: z.boolean() });

export const twoFactorSetupOutput = z.object({ secret: z.string(), otpauthUrl: z.string(), qrCodeDataUrl: z.string() });

export const twoFactorEnableOutput = z.object({ recoveryCodes: z.array(z.string()) });

export const twoFactorDisableOutput = z.object({ success: z.literal(true) });

export const twoFactorLoginOutput = z.object({
  success: z.literal(true),
  user: z.object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    credits: z.bigint(),
    total_usage_bytes: z.bigint(),
    proxyUserId: z.string(),
    proxyPassword: z.string(),
    apiKey: z.string(),
    emailVerified: z.boolean(),
    authType: z.enum(['email', 'google']),
    returning: z.boolean(),
    createdAt: z.date(),
    referralCode: z.string(),
  }),
});

export const twoFactorAdminSetupOutput = z.object({ secret: z.string(), otpauthUrl: z.string(), qrCodeDataUrl: z.string() });

export const twoFactorAdminEnableOutput = z.object({ recoveryCodes: z.array(z.string()) });

export const twoFactorAdminDisableOutput = z.object({ success: z.literal(true) });

export const twoFactorAdminLoginOutput = z.object({ success: z.literal(true) });
