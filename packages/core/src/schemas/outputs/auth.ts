import { z } from 'zod';
import { LOCALES } from '../../i18n/locales';
import { TEAM_ROLES } from '../teams';

/** What the `auth.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

/** The signed-in user as every answer that carries one shows them. */
export const authMeOutput = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  credits: z.bigint(),
  /** Of `credits`, the plan allowances' bytes, which expire at `planEndsAt` (the soonest bucket's end). */
  planBytes: z.bigint(),
  planEndsAt: z.date().nullable(),
  total_usage_bytes: z.bigint(),
  proxyUserId: z.string(),
  proxyPassword: z.string(),
  apiKey: z.string(),
  emailVerified: z.boolean(),
  authType: z.enum(['email', 'google']),
  returning: z.boolean(),
  createdAt: z.date(),
  referralCode: z.string(),
  /** The language of the user's mails and bot replies, and of the web app once signed in. */
  locale: z.enum(LOCALES),
});

/** A team member acting on a team's account: who they are and their role there. */
export const teamActorOutput = z.object({ id: z.string(), name: z.string(), role: z.enum(TEAM_ROLES) });

/** `auth.me`: the account the call acts on, and the member acting on it (a team's account) or null. */
export const authMeAnswerOutput = authMeOutput.extend({ actor: teamActorOutput.nullable().optional() });

export const authRotateApiKeyOutput = z.object({ apiKey: z.string() });

export const authRotateProxyPasswordOutput = z.object({ proxyPassword: z.string() });

export const authRegisterOutput = z.object({ message: z.string() });

export const authLoginOutput = z.union([
  z.object({ status: z.literal('verification_required'), message: z.string() }),
  z.object({ status: z.literal('two_factor_required') }),
  z.object({
    status: z.literal('ok'),
    user: authMeOutput,
  }),
]);

export const authLogoutOutput = z.object({ message: z.string() });

export const authChangePasswordOutput = z.object({ message: z.string() });

export const authRenameOutput = z.object({
  user: authMeOutput,
});

export const authDeleteAccountOutput = z.object({ message: z.string() });

export const authSignInOptionsOutput = z.object({ google: z.boolean() });

export const authVerifyEmailOutput = z.object({ alreadyVerified: z.boolean(), message: z.string() });

export const authResendVerificationOutput = z.object({ message: z.string() });

export const authForgotPasswordOutput = z.object({ message: z.string() });

export const authResetPasswordOutput = z.object({ message: z.string() });

export const authCheckResetTokenOutput = z.object({ valid: z.boolean() });

export const authGoogleStartOutput = z.object({ url: z.string(), state: z.string(), codeVerifier: z.string() });

export const authGoogleCallbackOutput = z.object({ requiresTwoFactor: z.boolean(), userId: z.string() });
