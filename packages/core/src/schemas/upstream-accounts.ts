import { z } from 'zod';
import { isHundredth } from './alerts';

/**
 * An upstream's account at its provider (`account` of POST/PATCH /admin/upstreams): which API
 * tells its traffic left and its usage per day, the key for it (sealed, never answered) and the
 * threshold under which the balance is low. `custom` is our own small contract any operator can
 * serve; the named providers are read over their public APIs.
 */
export const UPSTREAM_PROVIDERS = ['custom', 'oxylabs', 'brightdata', 'decodo', 'iproyal', 'soax'] as const;
export type UpstreamProvider = (typeof UPSTREAM_PROVIDERS)[number];

/** The names the admin form shows. */
export const UPSTREAM_PROVIDER_LABELS: Record<UpstreamProvider, string> = {
  custom: 'Custom (our contract)',
  oxylabs: 'Oxylabs',
  brightdata: 'Bright Data',
  decodo: 'Decodo',
  iproyal: 'IPRoyal',
  soax: 'SOAX',
};

/** ok / low (under the threshold) / dry (nothing left) / error (the last check failed) / unchecked (none yet). */
export const UPSTREAM_ACCOUNT_STATUSES = ['ok', 'low', 'dry', 'error', 'unchecked'] as const;
export type UpstreamAccountStatus = (typeof UPSTREAM_ACCOUNT_STATUSES)[number];

/** What a balance says by itself (the status unless the last check failed). */
export const UPSTREAM_BALANCE_LEVELS = ['ok', 'low', 'dry'] as const;
export type UpstreamBalanceLevel = (typeof UPSTREAM_BALANCE_LEVELS)[number];

/** Alerts of the admin list (GET /admin/alerts). */
export const ADMIN_ALERT_KINDS = ['upstream_low', 'upstream_dry', 'upstream_drift'] as const;
export type AdminAlertKind = (typeof ADMIN_ALERT_KINDS)[number];

/** UPSTREAM_BALANCE_MINUTES' default: how often the fleet reads every account's balance. */
export const DEFAULT_UPSTREAM_BALANCE_MINUTES = 5;

const providerUrl = (label: string) =>
  z
    .url({ protocol: /^https?$/, error: `${label} must be an https:// address` })
    .max(2000, `${label} must be at most 2000 characters`)
    .nullable()
    .optional();

export const upstreamAccountInput = z
  .object({
    provider: z.enum(UPSTREAM_PROVIDERS, { error: `Provider must be one of ${UPSTREAM_PROVIDERS.join(', ')}` }),
    /** Omitted: the stored key stays (a new account without one sends none). */
    apiKey: z.string({ error: 'API key must be text' }).max(2000, 'API key must be at most 2000 characters').optional(),
    /** custom: where the balance is read; a named provider: replaces its documented endpoint. */
    balanceUrl: providerUrl('Balance URL'),
    usageUrl: providerUrl('Usage URL'),
    /** Below this many GB the status is low; 0 or omitted: only dry is reported. */
    lowBalanceGB: z
      .number({ error: 'Low balance threshold must be a number of GB' })
      .min(0, 'Low balance threshold must be 0 GB or more')
      .max(1_000_000, 'Low balance threshold must be at most 1000000 GB')
      .refine(isHundredth, 'Low balance threshold has at most two decimals')
      .optional(),
  })
  .superRefine((a, ctx) => {
    if (a.provider !== 'custom') return;
    if (!a.balanceUrl) ctx.addIssue({ code: 'custom', path: ['balanceUrl'], message: 'Balance URL is required for a custom provider' });
    if (!a.usageUrl) ctx.addIssue({ code: 'custom', path: ['usageUrl'], message: 'Usage URL is required for a custom provider' });
  });
export type UpstreamAccountInput = z.infer<typeof upstreamAccountInput>;

/** `account` of an upstream's create or update: null removes it. */
export const upstreamAccountField = upstreamAccountInput.nullable();
