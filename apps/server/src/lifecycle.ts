import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  balanceWatchPeriodMs,
  balanceWatchTick,
  checkBalanceAlerts,
  CONNECTION_LOG_DAYS,
  EXPIRING_PERIOD_MS,
  expiringAccountsTick,
  creditDueReferrals,
  GATEWAY_DOWN_AFTER_MS,
  kickTelegram,
  loadLocations,
  maintainConnectionLog,
  pruneAccountAudit,
  qualityProbePeriodMs,
  qualityProbeTick,
  sendStatusNotices,
  makeDueStatements,
  planPeriodsTick,
  reconcileExpiredLeases,
  reconcileTick,
  settleDownGateways,
  startWebhookSender,
  webhookPolicy,
  type ApiDeps,
} from '@proxyhub/api';
import { bootstrapAdmin } from './admin-bootstrap';

export interface BackgroundJobOptions {
  deps: ApiDeps;
  admin?: { username: string; password: string | undefined } | undefined;
  periodic: boolean;
}

/**
 * Start-up tasks (admin bootstrap) and periodic jobs (expired sessions, lease reconciliation,
 * referral earnings that are due).
 * Returns a stop function for graceful shutdown.
 */
export async function startBackgroundJobs(opts: BackgroundJobOptions): Promise<() => Promise<void>> {
  if (opts.admin) await bootstrapAdmin(opts.deps, opts.admin);
  // Build the location index now rather than on the first request (or the gateway's first check).
  if (opts.periodic) loadLocations();
  const timers: NodeJS.Timeout[] = [];
  const stops: (() => Promise<void>)[] = [];
  if (opts.periodic) {
    const { deps } = opts;
    const sweep = async () => {
      await deps.sessions.user.sweepExpired();
      await deps.sessions.admin.sweepExpired();
    };
    timers.push(setInterval(() => void sweep().catch((err: unknown) => deps.logger.error({ err }, 'session sweep failed')), 60 * 60 * 1000).unref());
    // Leases of a gateway that crashed (no report for LEASE_TTL_MS) go back to their wallets.
    const reconcile = async () => {
      const r = await reconcileExpiredLeases(deps.db);
      if (r.released) deps.cache.invalidate();
      if (r.released) deps.logger.info({ leases: r.released, returnedBytes: String(r.returnedBytes) }, 'expired gateway leases settled');
    };
    timers.push(setInterval(() => void reconcile().catch((err: unknown) => deps.logger.error({ err }, 'lease reconciliation failed')), 30 * 1000).unref());
    // Leases of a gateway the fleet shows as down (no heartbeat for the down interval) go back too.
    // Only once this process has itself run that long: after a server outage every gateway looks
    // silent until its next heartbeat, which is no reason to settle the leases it is spending.
    const downAfterMs = deps.config.gatewayDownAfterMs ?? GATEWAY_DOWN_AFTER_MS;
    const jobsStartedAt = Date.now();
    const settleDown = async () => {
      if (Date.now() - jobsStartedAt < downAfterMs) return;
      const r = await settleDownGateways(deps.db, downAfterMs);
      if (r.released) deps.logger.warn({ gateways: r.gateways, leases: r.released, returnedBytes: String(r.returnedBytes) }, 'leases of down gateways settled');
    };
    timers.push(
      setInterval(
        () => void settleDown().catch((err: unknown) => deps.logger.error({ err }, 'down gateway settlement failed')),
        Math.min(30_000, downAfterMs / 4),
      ).unref(),
    );
    // The connection log: today's and tomorrow's partitions, and whole days past the retention dropped.
    const connectionLog = async () => {
      const r = await maintainConnectionLog(deps.db, Date.now(), deps.config.connectionLogDays ?? CONNECTION_LOG_DAYS);
      if (r.dropped.length) deps.logger.info({ dropped: r.dropped }, 'connection log days dropped');
      // The customers' audit logs keep ACCOUNT_AUDIT_DAYS: the same retention pass.
      const audit = await pruneAccountAudit(deps.db);
      if (audit) deps.logger.info({ entries: audit }, 'account audit entries pruned');
    };
    const runConnectionLog = () => void connectionLog().catch((err: unknown) => deps.logger.error({ err }, 'connection log maintenance failed'));
    runConnectionLog();
    timers.push(setInterval(runConnectionLog, 60 * 60 * 1000).unref());
    // Signed daily statements: each past day's, shortly after midnight UTC (after the grace for the
    // day's last reports); checked every 5 minutes, nothing to do costs no query.
    const statementsJob = async () => {
      const r = await makeDueStatements(deps.db, deps.config);
      if (r.made) deps.logger.info({ users: r.users, statements: r.made }, 'daily statements made');
    };
    const runStatements = () => void statementsJob().catch((err: unknown) => deps.logger.error({ err }, 'daily statements failed'));
    runStatements();
    timers.push(setInterval(runStatements, 5 * 60 * 1000).unref());
    // Safety net for balance changes no request checked (payments, reconciled leases): at most one
    // mail per crossing still holds, the state moves by conditional UPDATE.
    const alerts = () => checkBalanceAlerts(deps.db, deps, undefined, deps.logger);
    timers.push(setInterval(() => void alerts().catch((err: unknown) => deps.logger.error({ err }, 'balance alert sweep failed')), 10 * 1000).unref());
    // Customers' webhooks: the outbox rows that are due (new events, retries) are sent, each on its
    // own so a slow receiver holds up no one else's. The rows are the queue, so a restart resumes
    // where it stopped.
    const webhookSender = startWebhookSender(deps.db, deps.secrets, webhookPolicy(deps.config), (err: unknown) =>
      deps.logger.error({ err }, 'webhook delivery failed'),
    );
    stops.push(() => webhookSender.stop());
    // Provider balances: every UPSTREAM_BALANCE_MINUTES one server of the fleet (the first to
    // claim the period) reads every account. Each server asks four times a period, so a period is
    // never missed for a timer's drift; the claim makes the other asks cost one INSERT.
    const serverId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    const balancePeriodMs = balanceWatchPeriodMs(deps.config);
    let watching = false;
    const balances = async () => {
      if (watching) return;
      watching = true;
      try {
        const r = await balanceWatchTick(deps.db, deps.secrets, deps.config, serverId);
        if (r?.results.some((x) => x.crossed)) kickTelegram(deps);
      } finally {
        watching = false;
      }
    };
    const runBalances = () => void balances().catch((err: unknown) => deps.logger.error({ err }, 'upstream balance watch failed'));
    runBalances();
    timers.push(setInterval(runBalances, Math.max(250, Math.min(30_000, balancePeriodMs / 4))).unref());
    // Referral earnings whose pending time has ended: each credited once, whatever runs at the same time.
    const referrals = async () => {
      const r = await creditDueReferrals(deps.db, new Date());
      if (!r.credited) return;
      deps.cache.invalidate();
      deps.logger.info({ credited: r.credited, bytes: String(r.bytes) }, 'referral earnings credited');
      await checkBalanceAlerts(deps.db, deps, r.referrerIds, deps.logger);
    };
    timers.push(setInterval(() => void referrals().catch((err: unknown) => deps.logger.error({ err }, 'referral crediting failed')), 60 * 1000).unref());
    // The providers' usage against ours: from 00:15 UTC, the server that claims the day fetches
    // the last 7 days of every upstream with an account; every server asks every 5 minutes, so a
    // server down at midnight does not skip the day.
    let reconciling = false;
    const reconcile7 = async () => {
      if (reconciling) return;
      reconciling = true;
      try {
        const r = await reconcileTick(deps, serverId);
        if (r)
          deps.logger.info(
            { upstreams: r.length, failedDays: r.flatMap((u) => u.days).filter((d) => d.status === 'error').length },
            'upstream usage reconciled',
          );
      } finally {
        reconciling = false;
      }
    };
    const runReconcile = () => void reconcile7().catch((err: unknown) => deps.logger.error({ err }, 'upstream reconciliation failed'));
    runReconcile();
    timers.push(setInterval(runReconcile, 5 * 60 * 1000).unref());
    // The quality board: every QUALITY_PROBE_MINUTES the server that claims the period probes each
    // offered country through the gateway; the incident mails it owes go out after (claimed first,
    // so each goes once), and the Telegram ones through the bot's outbox.
    const probePeriodMs = qualityProbePeriodMs(deps.config);
    let probing = false;
    const probe = async () => {
      if (probing) return;
      probing = true;
      try {
        const r = await qualityProbeTick(deps.db, deps.secrets, deps.config, serverId);
        if (r?.incidents.length) {
          deps.logger.warn({ incidents: r.incidents }, 'quality incidents changed');
          kickTelegram(deps);
        }
        await sendStatusNotices(deps.db, deps.mailer, deps.config.publicUrl, deps.logger);
      } finally {
        probing = false;
      }
    };
    const runProbe = () => void probe().catch((err: unknown) => deps.logger.error({ err }, 'quality probes failed'));
    runProbe();
    timers.push(setInterval(runProbe, Math.max(250, Math.min(30_000, probePeriodMs / 4))).unref());
    // Proxy accounts that expire within three days: the server that claims the period notifies
    // their owners, once per expires_at.
    const expiring = async () => {
      const r = await expiringAccountsTick(deps.db, deps, serverId, Date.now(), deps.logger);
      if (r?.length) kickTelegram(deps);
    };
    const runExpiring = () => void expiring().catch((err: unknown) => deps.logger.error({ err }, 'expiring account notices failed'));
    runExpiring();
    timers.push(setInterval(runExpiring, EXPIRING_PERIOD_MS / 4).unref());
    // Plan periods: every server each minute; each period end and renewal notice happens once
    // (row conditions decide), so a server down at a period's end only delays it to the next tick.
    let planTicking = false;
    const planTick = async () => {
      if (planTicking) return;
      planTicking = true;
      try {
        const r = await planPeriodsTick(deps);
        if (r.periodsEnded || r.notices.length) deps.logger.info({ periodsEnded: r.periodsEnded, notices: r.notices.length }, 'plan periods');
      } finally {
        planTicking = false;
      }
    };
    const runPlanTick = () => void planTick().catch((err: unknown) => deps.logger.error({ err }, 'plan periods failed'));
    runPlanTick();
    timers.push(setInterval(runPlanTick, 60_000).unref());
  }
  return async () => {
    for (const t of timers) clearInterval(t);
    await Promise.all(stops.map((stop) => stop()));
  };
}
