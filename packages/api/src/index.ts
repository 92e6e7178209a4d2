// What other packages use of the api, and nothing else (apps/server, apps/gateway's types and tests,
// packages/testing, the web app's tests): a name no other package imports stays inside.
export { DEFAULT_RATE_LIMITS, servedOverHttps, type ApiConfig, type RateLimitConfig } from './config';
export { createContext, isInternalCaller, usesBearer, type Context, type RequestLike, type ResponseLike } from './context';
export { createApiDeps, kickTelegram, type ApiDeps, type Logger } from './deps';
export { createMailer, figures, mailTemplates, type MailDraft, type MailMessage, type Recipient } from './mail';
export { createRateLimiter } from './rate-limit';
export { appRouter, createCaller, type AppRouter } from './root';
export { firstZodMessage, trpcErrorFrom } from './trpc';
export { GOOGLE_NOT_CONFIGURED } from './routers/auth';
export { webhookPolicy } from './routers/webhooks';
export { SANDBOX_SIGNATURE_HEADER, signBody, signSandboxNotification, type ProviderName, type SandboxNotification } from './payments';

// Accounts and the admin's bootstrap.
export { upsertAdmin, adminExists } from './services/admin/admin-sign-in';
// Money: the ledger check, credits, codes, payments, referrals, promotions, statements.
export { checkLedger, checkUserLedger } from './services/money/ledger';
export { credit } from './services/money/wallet';
export { newTopupCode } from './services/money/topup-codes';
export { receivePaymentNotification, sandboxOrder, type NotificationResult } from './services/money/payments';
export { attachReferrer, creditDueReferrals } from './services/money/referrals';
export { createPromotion } from './services/money/promotions';
export { makeDueStatements } from './services/money/statements';
export { planPeriodsTick, type PlanTick } from './services/money/plan-renewals';
export type { BillingEntry, Receipt } from './services/money/billing';
// The gateway fleet and its usage.
export { LEASE_TTL_MS, reconcileExpiredLeases } from './services/gateway/leases';
export { GATEWAY_DOWN_AFTER_MS, settleDownGateways } from './services/gateway/gateway-fleet';
export { userUsageTotals } from './services/usage/usage-counts';
export { CONNECTION_LOG_DAYS } from './services/connection-log/days';
export { connectionsCsvText } from './services/connection-log/reads';
export { maintainConnectionLog } from './services/connection-log/store';
export { AUDITED_PROCEDURES, pruneAccountAudit } from './services/accounts/account-audit';
// Upstreams and locations.
export { isKnownLocation, loadLocations } from './services/network/locations';
export { reconcileTick, reconciliationCsvText, upstreamReconciliation } from './services/network/upstream-reconciliation';
export { ProviderError, readProviderBalance, readProviderUsage } from './services/network/provider-adapters';
export { qualityProbePeriodMs, qualityProbeTick, runQualityProbes, PROBE_BATCH_CODE } from './services/status/quality-probes';
export { sendStatusNotices, setChatSubscribed } from './services/status/status-subscriptions';
export { updateIncidents } from './services/status/quality-incidents';
export { qualityBoard } from './services/status/quality-board';
export { balanceWatchPeriodMs, balanceWatchTick, checkUpstreamBalances, providerAccountOf, upstreamAccountStates } from './services/network/provider-accounts';
// Notifications.
export { checkBalanceAlerts } from './services/notify/balance-alerts';
export { EXPIRING_PERIOD_MS, expiringAccountsTick, notifyExpiringAccounts } from './services/notify/expiring-accounts';
export { checkUsageMeters, proxyAccountMeters, reachedPercent, type UsageMeter } from './services/notify/usage-alerts';
export { deliverDueWebhooks, startWebhookSender } from './services/notify/webhooks';
export {
  chatLocale,
  chatOwner,
  claimOutbox,
  linkTelegramChat,
  markOutboxSent,
  releaseOutbox,
  type ChatOwner,
  type Translator,
} from './services/notify/telegram';
