import { z } from 'zod';

/** What the `proxyAccounts.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const proxyAccountsListOutput = z.object({
  accounts: z.array(
    z.object({
      proxyUserId: z.string(),
      proxyPassword: z.string(),
      name: z.string(),
      kind: z.enum(['sub', 'batch', 'main']),
      capBytes: z.string().nullable(),
      usedBytes: z.string(),
      dailyLimitBytes: z.string().nullable(),
      monthlyLimitBytes: z.string().nullable(),
      dayUsedBytes: z.string(),
      monthUsedBytes: z.string(),
      expiresAt: z.string().nullable(),
      maxConnections: z.number().nullable(),
      disabled: z.boolean(),
      createdAt: z.string(),
    }),
  ),
});

export const proxyAccountsCreateOutput = z.object({
  account: z.object({
    proxyUserId: z.string(),
    proxyPassword: z.string(),
    name: z.string(),
    kind: z.enum(['sub', 'batch', 'main']),
    capBytes: z.string().nullable(),
    usedBytes: z.string(),
    dailyLimitBytes: z.string().nullable(),
    monthlyLimitBytes: z.string().nullable(),
    dayUsedBytes: z.string(),
    monthUsedBytes: z.string(),
    expiresAt: z.string().nullable(),
    maxConnections: z.number().nullable(),
    disabled: z.boolean(),
    createdAt: z.string(),
  }),
});

export const proxyAccountsUpdateOutput = z.object({
  account: z.object({
    proxyUserId: z.string(),
    proxyPassword: z.string(),
    name: z.string(),
    kind: z.enum(['sub', 'batch', 'main']),
    capBytes: z.string().nullable(),
    usedBytes: z.string(),
    dailyLimitBytes: z.string().nullable(),
    monthlyLimitBytes: z.string().nullable(),
    dayUsedBytes: z.string(),
    monthUsedBytes: z.string(),
    expiresAt: z.string().nullable(),
    maxConnections: z.number().nullable(),
    disabled: z.boolean(),
    createdAt: z.string(),
  }),
});

export const proxyAccountsRotatePasswordOutput = z.object({ proxyPassword: z.string() });

export const proxyAccountsTestOutput = z.union([
  z.object({ ok: z.literal(true), latencyMs: z.number(), exitIp: z.string().nullable(), country: z.string().nullable() }),
  z.object({ ok: z.literal(false), failure: z.enum(['refused', 'gateway', 'check_page', 'upstream']), error: z.string() }),
]);

export const proxyAccountsRotateLineOutput = z.object({ username: z.string(), rotation: z.number(), rotatedAt: z.string() });

export const proxyAccountsTargetRulesOutput = z.object({ mode: z.enum(['allow', 'deny']), patterns: z.array(z.string()) });

export const proxyAccountsSetTargetRulesOutput = z.object({ mode: z.enum(['allow', 'deny']), patterns: z.array(z.string()) });

export const proxyAccountsBlockTargetsOutput = z.object({ mode: z.enum(['allow', 'deny']), patterns: z.array(z.string()) });
