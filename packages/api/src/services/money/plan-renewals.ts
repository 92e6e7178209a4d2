/**
 * The plan clock, run by every server each minute: period ends first (subscriptions.ts), then the
 * renewal notices due seven days and one day before a period's end. A notice is claimed by a
 * conditional UPDATE of its subscription (`notice7_period` / `notice1_period` below the current
 * period), so of any number of servers exactly one sends it; what it sends (the invoice link by mail,
 * Telegram when linked, the `plan.renewing` webhook event) follows the claim.
 */
import { and, desc, eq, gt, isNull, lt, lte, sql } from 'drizzle-orm';
import { payments, plans, subscriptions, users } from '@proxyhub/db';
import { kickTelegram, type ApiDeps } from '../../deps';
import { figures, mailTemplates } from '../../mail';
import { notifyTelegram } from '../notify/telegram';
import { emitWebhookEvent } from '../notify/webhooks';
import { createPlanPayment } from './payments';
import { endDuePeriods } from './subscriptions';

const DAY_MS = 86_400_000;
export const RENEWAL_NOTICE_DAYS = [7, 1] as const;

export interface PlanTick {
  periodsEnded: number;
  notices: Array<{ subscriptionId: string; daysBefore: 7 | 1 }>;
}

/** One run of the plan clock at `now` (the deps' clock unless given). */
export async function planPeriodsTick(deps: ApiDeps, now: Date = deps.now?.() ?? new Date()): Promise<PlanTick> {
  const periodsEnded = await endDuePeriods(deps.db, now);
  const notices = await sendRenewalNotices(deps, now);
  if (notices.length) kickTelegram(deps);
  return { periodsEnded, notices };
}

/**
 * Active subscriptions whose next period is not paid yet and whose end is within seven days: each
 * gets the notice it is due, once per period. A clock that jumps past the seven-day mark straight
 * into the last day sends the one-day notice only.
 */
export async function sendRenewalNotices(deps: ApiDeps, now: Date): Promise<PlanTick['notices']> {
  const due = await deps.db
    .select({ sub: subscriptions, plan: plans, email: users.email, locale: users.locale })
    .from(subscriptions)
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .innerJoin(users, eq(users.id, subscriptions.userId))
    .where(
      and(
        isNull(subscriptions.endedAt),
        eq(subscriptions.status, 'active'),
        eq(subscriptions.paidPeriods, subscriptions.period),
        gt(subscriptions.periodEnd, now),
        lte(subscriptions.periodEnd, new Date(now.getTime() + 7 * DAY_MS)),
        lt(subscriptions.notice1Period, subscriptions.period),
      ),
    )
    .limit(500);
  const sent: PlanTick['notices'] = [];
  for (const { sub, plan, email, locale } of due) {
    const daysBefore = sub.periodEnd.getTime() - now.getTime() <= DAY_MS ? 1 : 7;
    if (daysBefore === 7 && sub.notice7Period >= sub.period) continue;
    // The claim: one server moves the mark, the others find it moved.
    const [won] = await deps.db
      .update(subscriptions)
      .set(daysBefore === 1 ? { notice1Period: sub.period, notice7Period: sub.period } : { notice7Period: sub.period })
      .where(
        and(
          eq(subscriptions.id, sub.id),
          eq(subscriptions.period, sub.period),
          lt(daysBefore === 1 ? subscriptions.notice1Period : subscriptions.notice7Period, sub.period),
        ),
      )
      .returning({ id: subscriptions.id });
    if (!won) continue;
    const link = await renewalLink(deps, { userId: sub.userId, planId: plan.id, subscriptionId: sub.id });
    await deps.db.transaction(async (tx) => {
      await emitWebhookEvent(tx, {
        userId: sub.userId,
        type: 'plan.renewing',
        data: {
          subscriptionId: sub.id,
          planId: plan.id,
          planName: plan.name,
          period: sub.period,
          periodEnd: sub.periodEnd.toISOString(),
          daysBefore,
          invoiceUrl: link,
        },
        dedupeKey: `plan-renewing:${sub.id}:${sub.period}:${daysBefore}`,
      });
      await notifyTelegram(tx, { userId: sub.userId }, (t, lng) =>
        t('notify.planRenewing', { ns: 'bot', plan: plan.name, endsOn: figures.day(lng, sub.periodEnd), url: link }),
      );
    });
    try {
      await deps.mailer.send(mailTemplates.planRenewing({ email, locale }, link, plan.name, sub.periodEnd));
    } catch (err) {
      deps.logger.error({ err, subscriptionId: sub.id }, 'renewal notice mail failed');
    }
    sent.push({ subscriptionId: sub.id, daysBefore });
  }
  return sent;
}

/**
 * The invoice that pays the subscription's next period: one still waiting (an earlier notice's),
 * else a new one. Without a reachable provider, the Billing page (where the
 * customer can pay it later).
 */
async function renewalLink(deps: ApiDeps, input: { userId: string; planId: string; subscriptionId: string }): Promise<string> {
  const [open] = await deps.db
    .select({ url: payments.invoiceUrl })
    .from(payments)
    .where(and(eq(payments.subscriptionId, input.subscriptionId), eq(payments.status, 'waiting'), sql`${payments.invoiceUrl} is not null`))
    .orderBy(desc(payments.createdAt))
    .limit(1);
  if (open?.url) return open.url;
  try {
    return (await createPlanPayment(deps, input)).invoiceUrl;
  } catch (err) {
    deps.logger.warn({ err, subscriptionId: input.subscriptionId }, 'renewal invoice not opened');
    return new URL('/billing', deps.config.publicUrl).toString();
  }
}
