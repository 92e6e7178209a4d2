import { adminRouter } from './routers/admin';
import { adminAlertsRouter } from './routers/admin-alerts';
import { alertsRouter } from './routers/alerts';
import { apiKeysRouter } from './routers/api-keys';
import { authRouter } from './routers/auth';
import { billingRouter } from './routers/billing';
import { creditsRouter } from './routers/credits';
import { gatewayRouter } from './routers/gateway';
import { giftsRouter } from './routers/gifts';
import { ipAllowlistRouter } from './routers/ip-allowlist';
import { plansRouter } from './routers/plans';
import { subscriptionsRouter } from './routers/subscriptions';
import { webhooksRouter } from './routers/webhooks';
import { locationsRouter } from './routers/locations';
import { proxyAccountsRouter } from './routers/proxy-accounts';
import { proxyLinesRouter } from './routers/proxy-lines';
import { referralsRouter } from './routers/referrals';
import { statementsRouter } from './routers/statements';
import { siteRouter } from './routers/site';
import { statusRouter } from './routers/status';
import { twoFactorRouter } from './routers/two-factor';
import { teamRouter } from './routers/team';
import { telegramRouter } from './routers/telegram';
import { usageRouter } from './routers/usage';
import { createCallerFactory, router } from './trpc';

export const appRouter = router({
  auth: authRouter,
  credits: creditsRouter,
  admin: adminRouter,
  adminAlerts: adminAlertsRouter,
  locations: locationsRouter,
  gateway: gatewayRouter,
  alerts: alertsRouter,
  billing: billingRouter,
  usage: usageRouter,
  proxyAccounts: proxyAccountsRouter,
  proxyLines: proxyLinesRouter,
  apiKeys: apiKeysRouter,
  twoFactor: twoFactorRouter,
  ipAllowlist: ipAllowlistRouter,
  webhooks: webhooksRouter,
  gifts: giftsRouter,
  referrals: referralsRouter,
  telegram: telegramRouter,
  statements: statementsRouter,
  site: siteRouter,
  plans: plansRouter,
  subscriptions: subscriptionsRouter,
  status: statusRouter,
  team: teamRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
