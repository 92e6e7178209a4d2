export * from './config';
export * from './context';
export * from './deps';
export { ReadCache } from './read-cache';
export * from './mail';
export * from './rate-limit';
export * from './root';
export { firstZodMessage, trpcErrorFrom } from './trpc';
export type { UserView } from './services/accounts/users';
export { GOOGLE_NOT_CONFIGURED } from './routers/auth';
export { checkLedger, checkUserLedger } from './services/money/ledger';
export { credit, type CreditInput, type Wallet } from './services/money/wallet';
export { LEASE_TTL_MS, reconcileExpiredLeases } from './services/gateway/leases';
export { canonicalJson, makeDueStatements, statementHash, STATEMENT_GRACE_MS } from './services/money/statements';
export { CONNECTION_LOG_DAYS } from './services/connection-log/days';
export { connectionsCsvText } from './services/connection-log/reads';
export { maintainConnectionLog } from './services/connection-log/store';
export { reconcileTick, reconciliationCsvText } from './services/network/upstream-reconciliation';
export { GATEWAY_DOWN_AFTER_MS, settleDownGateways } from './services/gateway/gateway-fleet';
export { usageByType, userUsageTotals, type UsageByType } from './services/usage/usage-counts';
export { isKnownLocation, loadLocations } from './services/network/locations';
export { checkBalanceAlerts } from './services/notify/balance-alerts';
export { attachReferrer, creditDueReferrals, DEFAULT_REFERRAL_SETTINGS, type ReferralSettings } from './services/money/referrals';
export type { BillingEntry, BillingPage, Receipt } from './services/money/billing';
export type { UsageHistory, UsagePoint } from './services/usage/usage-history';
export { upsertAdmin, adminExists } from './services/admin/admin-sign-in';
export { receivePaymentNotification, sandboxOrder, type NotificationResult } from './services/money/payments';
export { createPromotion, listPromotions, setPromotionEnabled, type CreatePromotion, type PromotionView } from './services/money/promotions';
export { newTopupCode } from './services/money/topup-codes';
export { SANDBOX_SIGNATURE_HEADER, signSandboxNotification, signBody, sortKeysDeep, type ProviderName, type SandboxNotification } from './payments';
export { deliverDueWebhooks, signWebhookBody, startWebhookSender, WEBHOOK_RETRY_DELAYS_MS } from './services/notify/webhooks';
export { webhookPolicy } from './routers/webhooks';
export {
  chatOwner,
  claimOutbox,
  linkTelegramChat,
  markOutboxSent,
  releaseOutbox,
  TELEGRAM_LINK_TTL_MS,
  type ChatOwner,
  type OutboxMessage,
} from './services/notify/telegram';
export { claimJobPeriod, periodNumber, runOncePerPeriod } from './services/lib/job-claims';
export {
  PROVIDER_ADAPTERS,
  ProviderError,
  readProviderBalance,
  readProviderUsage,
  type ProviderAccount,
  type ProviderAdapter,
} from './services/network/provider-adapters';
export { listAdminAlerts, raiseAdminAlert, resolveAdminAlerts, type AdminAlertView } from './services/notify/admin-alerts';
export { checkOutboundUrl, requestChecked, type OutboundPolicy } from './services/lib/outbound-http';
export { balanceWatchPeriodMs, balanceWatchTick, checkUpstreamBalances, providerAccountOf, upstreamAccountStates } from './services/network/provider-accounts';
