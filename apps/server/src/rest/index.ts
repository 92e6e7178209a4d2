import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '@proxyhub/api';
import { accountRoutes } from './account';
import { adminRoutes } from './admin';
import { adminAlertsRoutes } from './admin-alerts';
import { adminSiteRoutes } from './admin-site';
import { alertsRoutes } from './alerts';
import { apiKeyRoutes } from './api-keys';
import { authRoutes } from './auth';
import { billingRoutes } from './billing';
import { credentialRoutes } from './credentials';
import { giftAndReferralRoutes } from './gifts';
import { ipAllowlistRoutes } from './ip-allowlist';
import { webhookRoutes } from './webhooks';
import { creditsRoutes } from './credits';
import { plansRoutes } from './plans';
import { subscriptionsRoutes } from './subscriptions';
import { locationsRoutes } from './locations';
import { proxyAccountsRoutes } from './proxy-accounts';
import { registerRestRoutes, type RestRoute } from './rest';
import { teamRoutes } from './team';
import { telegramRoutes } from './telegram';
import { siteRoutes } from './site';
import { twoFactorRoutes } from './two-factor';
import { usageRoutes } from './usage';
import { connectionRoutes } from './connections';
import { statementRoutes } from './statements';
import { upstreamReconciliationRoutes } from './upstream-reconciliation';

/** Every REST path with the schema of its input: what an OpenAPI document would be generated from. */
export const restRoutes: readonly RestRoute[] = [
  ...authRoutes,
  ...accountRoutes,
  ...credentialRoutes,
  ...creditsRoutes,
  ...plansRoutes,
  ...subscriptionsRoutes,
  ...adminRoutes,
  ...upstreamReconciliationRoutes,
  ...adminAlertsRoutes,
  ...adminSiteRoutes,
  ...locationsRoutes,
  ...alertsRoutes,
  ...billingRoutes,
  ...usageRoutes,
  ...connectionRoutes,
  ...statementRoutes,
  ...proxyAccountsRoutes,
  ...twoFactorRoutes,
  ...ipAllowlistRoutes,
  ...webhookRoutes,
  ...apiKeyRoutes,
  ...teamRoutes,
  ...giftAndReferralRoutes,
  ...telegramRoutes,
  ...siteRoutes,
];

/** The spec's REST paths. */
export async function rest(app: FastifyInstance, { deps }: { deps: ApiDeps }) {
  registerRestRoutes(app, deps, restRoutes);
}
