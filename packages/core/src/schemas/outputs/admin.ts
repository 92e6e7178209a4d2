import { z } from 'zod';
import { billingEntryOutput } from './billing';
import { SUBSCRIPTION_STATUS_VALUES } from '../plans';
import { UPSTREAM_PROVIDERS } from '../upstream-accounts';
import { paymentOutput, pricingOutput } from './credits';
import { usageConnectionsOutput, usageCountryOutput, usagePointOutput } from './usage';

/** What the `admin.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const adminSellerOutput = z.object({
  seller: z.object({ companyName: z.string(), address: z.string(), supportEmail: z.string(), legalUpdatedOn: z.string(), legalEffectiveOn: z.string() }),
  placeholders: z.array(z.string()),
});

export const adminSetSellerOutput = adminSellerOutput.extend({ success: z.literal(true) });

export const adminTelegramStatusOutput = z.object({
  enabled: z.boolean(),
  botUsername: z.string().nullable(),
  chat: z.object({ chatId: z.number(), linkedAt: z.string() }).nullable(),
});

export const adminTelegramLinkOutput = z.object({ code: z.string(), url: z.string() });

export const adminTelegramUnlinkOutput = z.object({ unlinked: z.boolean() });

export const adminTelegramBroadcastOutput = z.object({ success: z.literal(true), sent: z.number() });

export const adminAdminsOutput = z.object({
  admins: z.array(
    z.object({
      id: z.string(),
      username: z.string(),
      role: z.enum(['owner', 'finance', 'support']),
      createdAt: z.string(),
      disabledAt: z.string().nullable(),
      twoFactor: z.boolean(),
    }),
  ),
});

export const adminCreateAdminOutput = z.object({
  success: z.literal(true),
  admin: z.object({ id: z.string(), username: z.string(), role: z.enum(['owner', 'finance', 'support']) }),
});

export const adminUpdateAdminOutput = z.object({
  success: z.literal(true),
  admin: z.object({
    id: z.string(),
    username: z.string(),
    role: z.enum(['owner', 'finance', 'support']),
    previousRole: z.enum(['owner', 'finance', 'support']),
  }),
});

export const adminDisableAdminOutput = z.object({ success: z.literal(true), admin: z.object({ id: z.string(), username: z.string() }) });

export const adminAuditLogOutput = z.object({
  entries: z.array(
    z.object({
      id: z.string(),
      at: z.string(),
      actor: z.string(),
      action: z.string(),
      target: z.string().nullable(),
      sourceAddress: z.string(),
      changes: z.unknown(),
      reason: z.string().nullable(),
    }),
  ),
  total: z.number(),
  page: z.number(),
  pageSize: z.number(),
});

export const adminAbuseLookupOutput = z.object({
  connections: z.array(
    z.object({
      id: z.string(),
      userId: z.string(),
      email: z.string(),
      userSuspended: z.boolean(),
      proxyAccountId: z.string(),
      proxyAccountName: z.string(),
      proxyUserId: z.string(),
      protocol: z.string(),
      target: z.string(),
      exitIp: z.string(),
      startedAt: z.string(),
      endedAt: z.string(),
      bytesUp: z.string(),
      bytesDown: z.string(),
      billedBytes: z.string(),
      outcome: z.string(),
      reason: z.string(),
      gatewayId: z.string(),
    }),
  ),
});

export const adminTargetPolicyOutput = z.object({ rules: z.array(z.string()), blockRawIp: z.boolean() });

export const adminSetTargetPolicyOutput = z.object({ rules: z.array(z.string()), blockRawIp: z.boolean() });

export const adminCatalogueOutput = z.object({ countries: z.array(z.string()) });

export const adminCatalogueChoicesOutput = z.object({ countries: z.array(z.object({ code: z.string(), name: z.string() })) });

export const adminSetCatalogueOutput = z.object({ countries: z.array(z.string()) });

export const adminUpstreamReconciliationOutput = z.object({
  days: z.array(
    z.object({
      date: z.string(),
      providerBytes: z.string().nullable(),
      ourBytes: z.string(),
      driftBytes: z.string().nullable(),
      driftPercent: z.number().nullable(),
      costCents: z.number().nullable(),
      fetchedAt: z.string().nullable(),
    }),
  ),
});

export const adminReconcileUpstreamOutput = z.object({
  days: z.array(z.object({ date: z.string(), status: z.enum(['error', 'fetched', 'final']), error: z.string().nullable() })),
});

/** One upstream pool as the admin's upstream procedures answer it. */
const upstreamOutput = z.object({
  id: z.string(),
  name: z.string(),
  protocol: z.enum(['http', 'socks5']),
  host: z.string(),
  port: z.number(),
  usernameTemplate: z.string(),
  passwordTemplate: z.string(),
  hasPassword: z.boolean(),
  countries: z.array(z.string()).nullable(),
  weight: z.number(),
  costPerGbCents: z.number(),
  maxSessionMinutes: z.number().nullable(),
  enabled: z.boolean(),
  costWarning: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  account: z
    .object({
      provider: z.enum(UPSTREAM_PROVIDERS),
      apiKeySet: z.boolean(),
      balanceUrl: z.string().nullable(),
      usageUrl: z.string().nullable(),
      lowBalanceGB: z.number(),
      balance: z.object({ bytes: z.string(), checkedAt: z.string() }).nullable(),
      status: z.enum(['error', 'low', 'ok', 'dry', 'unchecked']),
      error: z.string().nullable(),
      lastCheckAt: z.string().nullable(),
    })
    .nullable(),
});

export const adminUpstreamsOutput = z.object({
  upstreams: z.array(
    upstreamOutput.extend({ usage: z.object({ bytes: z.number(), costCents: z.number(), revenueCents: z.number(), marginCents: z.number() }) }),
  ),
});

export const adminCostWarningsOutput = z.object({ warnings: z.array(z.string()) });

export const adminUpstreamUsageOutput = z.object({
  upstream: upstreamOutput,
  days: z.array(
    z.object({
      day: z.string(),
      bytes: z.number(),
      costCents: z.number(),
      revenueCents: z.number(),
      marginCents: z.number(),
      okRate: z.number().nullable(),
      p50ConnectMs: z.number().nullable(),
    }),
  ),
  quality: z.object({ okRate: z.number().nullable(), p50ConnectMs: z.number().nullable() }),
  soldPricePerGbCents: z.number(),
});

export const adminCreateUpstreamOutput = upstreamOutput;

export const adminUpdateUpstreamOutput = upstreamOutput;

export const adminTestUpstreamOutput = z.union([
  z.object({ ok: z.literal(true), status: z.number(), latencyMs: z.number(), username: z.string(), body: z.string() }),
  z.object({
    ok: z.literal(false),
    status: z.number().nullable(),
    latencyMs: z.number(),
    username: z.string(),
    body: z.string(),
    error: z.string(),
    failure: z.enum(['auth', 'page', 'refused', 'timeout', 'tls', 'certificate', 'dns', 'private_upstream', 'private', 'other']),
    reason: z.string(),
  }),
]);

export const adminDeleteUpstreamOutput = z.object({ success: z.literal(true), id: z.string() });

export const adminGatewaysOutput = z.object({
  gateways: z.array(
    z.object({
      id: z.string(),
      version: z.string(),
      startedAt: z.string(),
      lastSeenAt: z.string(),
      status: z.enum(['down', 'up']),
      openTunnels: z.number(),
      bytesPerSecUp: z.number(),
      bytesPerSecDown: z.number(),
      leasedBytes: z.number(),
      upstreamErrors: z.number(),
    }),
  ),
});

export const adminPlansOutput = z.object({
  plans: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      gbPerPeriod: z.number(),
      priceCents: z.number(),
      period: z.enum(['month', 'week']),
      rollover: z.boolean(),
      active: z.boolean(),
      /** Active subscriptions still running. */
      subscribers: z.number(),
      /** Cents of the plan's orders credited this UTC month. */
      revenueCentsThisMonth: z.number(),
    }),
  ),
});

export const adminCreatePlanOutput = z.object({
  success: z.literal(true),
  plan: z.object({
    id: z.string(),
    name: z.string(),
    gbPerPeriod: z.number(),
    priceCents: z.number(),
    period: z.enum(['month', 'week']),
    rollover: z.boolean(),
    active: z.boolean(),
  }),
});

export const adminUpdatePlanOutput = z.object({
  success: z.literal(true),
  plan: z.object({
    id: z.string(),
    name: z.string(),
    gbPerPeriod: z.number(),
    priceCents: z.number(),
    period: z.enum(['month', 'week']),
    rollover: z.boolean(),
    active: z.boolean(),
  }),
});

export const adminDeletePlanOutput = z.object({ success: z.literal(true) });

export const adminSetPricingOutput = z.object({
  success: z.literal(true),
  pricing: pricingOutput,
});

export const adminSetUserPriceOutput = z.object({ success: z.literal(true), user: z.object({ id: z.string(), pricePerGbCents: z.number().nullable() }) });

export const adminCreatePromotionOutput = z.object({
  success: z.literal(true),
  promotion: z.object({
    code: z.string(),
    kind: z.enum(['credit', 'bonus']),
    creditsGB: z.number().nullable(),
    creditsBytes: z.number().nullable(),
    bonusPercent: z.number().nullable(),
    maxRedemptions: z.number(),
    maxPerUser: z.number(),
    firstPurchaseOnly: z.boolean(),
    expiresAt: z.string().nullable(),
    campaign: z.string().nullable(),
    enabled: z.boolean(),
    redemptions: z.number(),
    creditedBytes: z.number(),
    revenueCents: z.number().optional(),
    createdBy: z.string(),
    createdAt: z.string(),
  }),
});

export const adminPromotionsOutput = z.object({
  promotions: z.array(
    z.object({
      code: z.string(),
      kind: z.enum(['credit', 'bonus']),
      creditsGB: z.number().nullable(),
      creditsBytes: z.number().nullable(),
      bonusPercent: z.number().nullable(),
      maxRedemptions: z.number(),
      maxPerUser: z.number(),
      firstPurchaseOnly: z.boolean(),
      expiresAt: z.string().nullable(),
      campaign: z.string().nullable(),
      enabled: z.boolean(),
      redemptions: z.number(),
      creditedBytes: z.number(),
      revenueCents: z.number().optional(),
      createdBy: z.string(),
      createdAt: z.string(),
    }),
  ),
});

export const adminUpdatePromotionOutput = z.object({
  success: z.literal(true),
  promotion: z.object({
    code: z.string(),
    kind: z.enum(['credit', 'bonus']),
    creditsGB: z.number().nullable(),
    creditsBytes: z.number().nullable(),
    bonusPercent: z.number().nullable(),
    maxRedemptions: z.number(),
    maxPerUser: z.number(),
    firstPurchaseOnly: z.boolean(),
    expiresAt: z.string().nullable(),
    campaign: z.string().nullable(),
    enabled: z.boolean(),
    redemptions: z.number(),
    creditedBytes: z.number(),
    revenueCents: z.number().optional(),
    createdBy: z.string(),
    createdAt: z.string(),
  }),
});

export const adminCreateCodesOutput = z.object({
  codes: z.array(z.object({ code: z.string(), creditsGB: z.number(), creditsMB: z.number(), creditsBytes: z.bigint(), expiresAt: z.date().nullable() })),
});

export const adminCodesOutput = z.object({
  codes: z.array(
    z.object({
      code: z.string(),
      creditsGB: z.number(),
      creditsBytes: z.string(),
      status: z.enum(['expired', 'unused', 'redeemed', 'revoked']),
      createdAt: z.string(),
      createdBy: z.string(),
      expiresAt: z.string().nullable(),
      redeemedAt: z.string().nullable(),
      redeemedBy: z.object({ id: z.string(), email: z.string().nullable() }).nullable(),
      revokedAt: z.string().nullable(),
    }),
  ),
  total: z.number(),
  page: z.number(),
  pageSize: z.number(),
});

export const adminRevokeCodeOutput = z.object({ code: z.string(), revokedAt: z.string(), success: z.literal(true) });

const userStatus = z.enum(['suspended', 'active', 'unverified', 'deleted']);

export const adminUsersOutput = z.object({
  users: z.array(
    z.object({
      id: z.string(),
      email: z.string(),
      name: z.string(),
      remainingBytes: z.bigint(),
      totalUsageBytes: z.bigint(),
      authType: z.enum(['email', 'google']),
      emailVerified: z.boolean(),
      status: userStatus,
      createdAt: z.date(),
    }),
  ),
  total: z.number(),
  page: z.number(),
  pageSize: z.number(),
});

export const adminPatchUserOutput = z.object({
  success: z.literal(true),
  user: z.object({ id: z.string(), pricePerGbCents: z.number().nullable(), targetPolicyExempt: z.boolean() }),
});

export const adminUserOutput = z.object({
  profile: z.object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    authType: z.enum(['email', 'google']),
    status: userStatus,
    emailVerified: z.boolean(),
    twoFactor: z.boolean(),
    signIns: z.number(),
    targetPolicyExempt: z.boolean(),
    pricePerGbCents: z.number().nullable(),
    createdAt: z.string(),
    suspendedAt: z.string().nullable(),
    deletedAt: z.string().nullable(),
    suspension: z.object({ reason: z.string().nullable(), by: z.string(), at: z.string() }).nullable(),
  }),
  balances: z.object({ remainingBytes: z.string(), creditsBytes: z.string(), leasedBytes: z.string(), usedBytes: z.string() }),
  proxyAccounts: z.array(
    z.object({
      proxyUserId: z.string(),
      name: z.string(),
      kind: z.enum(['sub', 'batch', 'main']),
      capBytes: z.string().nullable(),
      usedBytes: z.string(),
      disabled: z.boolean(),
      createdAt: z.string(),
    }),
  ),
  /** Running ones first; bytes of the current (or last) period. */
  subscriptions: z.array(
    z.object({
      id: z.string(),
      planId: z.string(),
      planName: z.string(),
      status: z.enum(SUBSCRIPTION_STATUS_VALUES),
      periodStart: z.string(),
      periodEnd: z.string(),
      allowanceBytes: z.string(),
      usedBytes: z.string(),
      carriedBytes: z.string(),
      renewsAt: z.string().nullable(),
    }),
  ),
  /** Latest end first; `remainingBytes` is what the bucket still holds in the wallet (0 once closed). */
  planBuckets: z.array(
    z.object({
      id: z.string(),
      subscriptionId: z.string(),
      planName: z.string(),
      period: z.number(),
      grantedBytes: z.string(),
      carriedBytes: z.string(),
      usedBytes: z.string(),
      remainingBytes: z.string(),
      startsAt: z.string(),
      endsAt: z.string(),
      closedAt: z.string().nullable(),
    }),
  ),
  billing: z.array(billingEntryOutput),
  usageByDay: z.array(usagePointOutput),
  usageByCountry: z.array(usageCountryOutput),
  sessions: z.object({ active: z.number(), expiresAt: z.array(z.string()) }),
});

/** The admin's view of a user's connection log: the same records the user reads. */
export const adminUserConnectionsOutput = usageConnectionsOutput;

export const adminSuspendUserOutput = z.object({ success: z.literal(true), suspendedAt: z.string() });

export const adminUnsuspendUserOutput = z.object({ success: z.literal(true) });

export const adminAdjustUserBalanceOutput = z.object({ deltaBytes: z.string(), creditsBytes: z.string(), success: z.literal(true) });

export const adminGlobalUsageOutput = z.object({
  stats: z.array(
    z.object({
      usage_type: z.enum(['normal_proxy', 'shop_proxy_regular', 'shop_proxy_admin']),
      total_bytes: z.bigint(),
      total_sessions: z.number(),
      last_updated: z.date().nullable(),
    }),
  ),
});

export const adminGlobalHistoryOutput = z.object({
  from: z.string(),
  to: z.string(),
  days: z.array(
    z.object({ day: z.string(), bytes: z.string(), cryptoCents: z.number(), codeCents: z.number(), planCents: z.number(), revenueCents: z.number() }),
  ),
  listPricePerGbCents: z.number(),
  byCountry: z.array(z.object({ country: z.string().nullable(), bytes: z.string() })),
  totals: z.object({ bytes: z.string(), revenueCents: z.number(), topUpCents: z.number(), planCents: z.number() }),
});

export const adminPaymentsOutput = z.object({ payments: z.array(paymentOutput.extend({ userEmail: z.string() })), total: z.number() });

export const adminLoginOutput = z.union([
  z.object({ success: z.literal(false), requiresTwoFactor: z.boolean(), username: z.string() }),
  z.object({ success: z.literal(false), requiresTwoFactorSetup: z.boolean(), username: z.string() }),
  z.object({ success: z.literal(true), username: z.string() }),
]);

export const adminLogoutOutput = z.object({ success: z.literal(true) });

export const adminMeOutput = z.object({ username: z.string(), role: z.enum(['owner', 'finance', 'support']) });
