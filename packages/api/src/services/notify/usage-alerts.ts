/**
 * Usage alerts: a notice (mail, Telegram, the `usage.threshold` webhook event) when usage first
 * reaches one of the user's percents of a limit in a period. Generic over "meters": anything with
 * bytes used of a limit in a named period. A proxy account's cap ('lifetime'), daily limit (the UTC
 * day) and monthly limit (the UTC month) are meters, and so is a plan period's allowance (meter
 * 'plan': the subscription's id, the period's start as period, the bucket's used bytes of its
 * granted plus carried bytes).
 *
 * Exactly once per crossing: the highest percent notified is kept per (meter, subject) with its
 * period and limit, and moved only by a conditional UPDATE (WHERE it is still what was read), so of
 * any number of concurrent checks (one per gateway report) one makes a move and sends its notice. A
 * later period starts again (a new day re-arms a daily limit), and a different limit re-arms the
 * percents usage is now under (a raised cap); usage only grows within a period, so a check that read
 * it earlier than another never moves the mark back.
 */
import { and, eq, inArray, isNotNull, isNull, or } from 'drizzle-orm';
import type { UsageMeterKind } from '@proxyhub/core';
import { gatewayLeases, planBuckets, plans, proxyAccounts, subscriptions, usageAlertMarks, users, type DbOrTx } from '@proxyhub/db';
import { figures, mailTemplates, meterWords, type DraftMailer } from '../../mail';
import { periodUsed, usagePeriod } from '../money/caps';
import { usersOfLeases } from './balance-alerts';
import { notifyTelegram } from './telegram';
import { emitWebhookEvent } from './webhooks';

export interface UsageMeter {
  meter: UsageMeterKind;
  /** Whose meter it is (the proxy account's or the subscription's id): with `meter`, the key of its mark. */
  subjectId: string;
  /** Later periods compare greater ('lifetime' for a cap, YYYY-MM-DD, YYYY-MM, an ISO time). */
  period: string;
  usedBytes: bigint;
  limitBytes: bigint;
  owner: { userId: string; email: string; locale: string; percents: readonly number[] };
  /** The proxy account's or the plan's name for the mail and Telegram (`the daily limit of proxy account "shop"`). */
  name: string;
  /** The event's fields naming the subject (proxyAccountId, proxyUserId; subscriptionId, planId). */
  subject: Record<string, string>;
}

export interface UsageNotice {
  meter: UsageMeterKind;
  subjectId: string;
  percent: number;
  period: string;
}

/** The highest of `percents` that `used` is at or past of `limit` (0: none). */
export function reachedPercent(used: bigint, limit: bigint, percents: readonly number[]): number {
  if (limit <= 0n) return 0;
  return percents.reduce((m, p) => (used * 100n >= BigInt(p) * limit && p > m ? p : m), 0);
}

type Mark = typeof usageAlertMarks.$inferSelect;

/**
 * Moves the meter's mark to what its usage says; the percent to notify when this call made a
 * crossing, else null. Retries when a concurrent check moved the mark between the read and the
 * UPDATE (the mark it then reads decides).
 */
async function advanceMark(tx: DbOrTx, m: UsageMeter, reached: number): Promise<number | null> {
  const key = and(eq(usageAlertMarks.meter, m.meter), eq(usageAlertMarks.subjectId, m.subjectId));
  for (let attempt = 0; attempt < 5; attempt++) {
    const [mark] = await tx.select().from(usageAlertMarks).where(key);
    if (!mark) {
      if (reached === 0) return null;
      const [made] = await tx
        .insert(usageAlertMarks)
        .values({ meter: m.meter, subjectId: m.subjectId, period: m.period, notifiedPercent: reached, limitBytes: m.limitBytes })
        .onConflictDoNothing()
        .returning({ p: usageAlertMarks.notifiedPercent });
      if (made) return reached;
      continue;
    }
    const next = nextMark(mark, m, reached);
    if (!next) return null;
    const [moved] = await tx
      .update(usageAlertMarks)
      .set(next)
      .where(
        and(
          key,
          eq(usageAlertMarks.period, mark.period),
          eq(usageAlertMarks.notifiedPercent, mark.notifiedPercent),
          eq(usageAlertMarks.limitBytes, mark.limitBytes),
        ),
      )
      .returning({ p: usageAlertMarks.notifiedPercent });
    if (moved) return next.notifiedPercent > (next.period === mark.period ? mark.notifiedPercent : 0) ? next.notifiedPercent : null;
  }
  return null;
}

/** The mark's new values, or null when it stays (nothing crossed, or a check that read an older period). */
function nextMark(mark: Mark, m: UsageMeter, reached: number): Pick<Mark, 'period' | 'notifiedPercent' | 'limitBytes'> | null {
  if (m.period < mark.period) return null;
  // A new period, or a new limit: the percents start from what usage is at now.
  if (m.period !== mark.period || m.limitBytes !== mark.limitBytes) return { period: m.period, notifiedPercent: reached, limitBytes: m.limitBytes };
  return reached > mark.notifiedPercent ? { period: m.period, notifiedPercent: reached, limitBytes: m.limitBytes } : null;
}

/**
 * Checks the meters and sends one notice per crossing made; run after the usage has committed.
 * A limit newly set or raised with usage already past a percent notifies that percent once.
 */
export async function checkUsageMeters(
  db: DbOrTx,
  mail: { mailer: DraftMailer; config: { publicUrl: string } },
  meters: readonly UsageMeter[],
  logger?: { error(obj: object, msg: string): void },
): Promise<UsageNotice[]> {
  const sent: UsageNotice[] = [];
  // Most checks (a report per second per gateway) move nothing: one read of the marks tells, and
  // only a meter whose mark would move opens a transaction (which reads the mark again).
  const marks = await readMarks(db, meters);
  for (const m of meters) {
    const reached = reachedPercent(m.usedBytes, m.limitBytes, m.owner.percents);
    const mark = marks.get(markKey(m));
    if (mark ? !nextMark(mark, m, reached) : reached === 0) continue;
    // The mark's move, its webhook event and its Telegram message commit together; the mail after.
    const percent = await db.transaction(async (tx) => {
      const p = await advanceMark(tx, m, reached);
      if (p === null) return null;
      const data = { meter: m.meter, ...m.subject, percent: p, usedBytes: String(m.usedBytes), limitBytes: String(m.limitBytes), period: m.period };
      // No dedupe key: the mark's move is the once, and a period or limit seen again is a new crossing.
      await emitWebhookEvent(tx, { userId: m.owner.userId, type: 'usage.threshold', data });
      await notifyTelegram(tx, { userId: m.owner.userId }, (t, lng) =>
        t('notify.usage', {
          ns: 'bot',
          percent: figures.percent(lng, p),
          what: meterWords(lng, m.meter, m.name),
          used: figures.gbNumber(lng, m.usedBytes),
          limit: figures.gb(lng, m.limitBytes),
        }),
      );
      return p;
    });
    if (percent === null) continue;
    // A plan's alert opens the dashboard (its buckets); a proxy account's, the proxy accounts.
    const link = new URL(m.meter === 'plan' ? '/dashboard' : '/proxy-accounts', mail.config.publicUrl).toString();
    const message = mailTemplates.usageThreshold(m.owner, link, { percent, meter: m.meter, name: m.name, usedBytes: m.usedBytes, limitBytes: m.limitBytes });
    // The crossing is recorded: a failing mailer loses this mail but fails neither the caller nor the other meters.
    try {
      await mail.mailer.send(message);
    } catch (err) {
      logger?.error({ err, meter: m.meter, subjectId: m.subjectId }, 'usage alert mail failed');
      continue;
    }
    sent.push({ meter: m.meter, subjectId: m.subjectId, percent, period: m.period });
  }
  return sent;
}

const markKey = (m: { meter: string; subjectId: string }) => `${m.meter}:${m.subjectId}`;

async function readMarks(db: DbOrTx, meters: readonly UsageMeter[]): Promise<Map<string, Mark>> {
  const subjects = [...new Set(meters.map((m) => m.subjectId))];
  if (!subjects.length) return new Map();
  const rows = await db.select().from(usageAlertMarks).where(inArray(usageAlertMarks.subjectId, subjects));
  return new Map(rows.map((r) => [markKey(r), r]));
}

const monthOf = (day: string) => day.slice(0, 7);

/** The meters of these proxy accounts (those with a cap or a limit and an owner), as of `now`. */
export async function proxyAccountMeters(db: DbOrTx, proxyAccountIds: readonly string[], now = new Date()): Promise<UsageMeter[]> {
  if (!proxyAccountIds.length) return [];
  const a = proxyAccounts;
  const rows = await db
    .select({
      id: a.id,
      name: a.name,
      proxyUserId: a.proxyUserId,
      cap: a.capBytes,
      used: a.usedBytes,
      daily: a.dailyLimitBytes,
      monthly: a.monthlyLimitBytes,
      dayUsedBytes: a.dayUsedBytes,
      monthUsedBytes: a.monthUsedBytes,
      usageDay: a.usageDay,
      userId: users.id,
      email: users.email,
      percents: users.usageAlertPercents,
      locale: users.locale,
    })
    .from(a)
    .innerJoin(users, eq(users.id, a.userId))
    .where(and(inArray(a.id, [...new Set(proxyAccountIds)]), or(isNotNull(a.capBytes), isNotNull(a.dailyLimitBytes), isNotNull(a.monthlyLimitBytes))));
  const { day } = usagePeriod(now);
  return rows.flatMap((r) => {
    const used = periodUsed(r, now);
    const base = {
      subjectId: r.id,
      owner: { userId: r.userId, email: r.email, locale: r.locale, percents: r.percents },
      name: r.name || r.proxyUserId,
      subject: { proxyAccountId: r.id, proxyUserId: r.proxyUserId },
    };
    const out: UsageMeter[] = [];
    if (r.cap !== null) out.push({ ...base, meter: 'cap', period: 'lifetime', usedBytes: r.used, limitBytes: r.cap });
    if (r.daily !== null) out.push({ ...base, meter: 'daily', period: day, usedBytes: used.day, limitBytes: r.daily });
    if (r.monthly !== null) out.push({ ...base, meter: 'monthly', period: monthOf(day), usedBytes: used.month, limitBytes: r.monthly });
    return out;
  });
}

/** The proxy accounts the given leases spend for. */
export async function accountsOfLeases(db: DbOrTx, leaseIds: readonly string[]): Promise<string[]> {
  if (!leaseIds.length) return [];
  const rows = await db
    .selectDistinct({ id: gatewayLeases.proxyAccountId })
    .from(gatewayLeases)
    .where(inArray(gatewayLeases.id, [...leaseIds]));
  return rows.map((r) => r.id);
}

/**
 * The plan meters of these users: each running subscription's current period, its bucket's used
 * bytes of its allowance (granted plus carried). Past 100 % traffic goes on from pay-as-you-go credit.
 */
export async function planMeters(db: DbOrTx, userIds: readonly string[]): Promise<UsageMeter[]> {
  if (!userIds.length) return [];
  const rows = await db
    .select({
      id: subscriptions.id,
      planId: plans.id,
      planName: plans.name,
      periodStart: subscriptions.periodStart,
      used: planBuckets.usedBytes,
      granted: planBuckets.grantedBytes,
      carried: planBuckets.carriedBytes,
      userId: users.id,
      email: users.email,
      locale: users.locale,
      percents: users.usageAlertPercents,
    })
    .from(subscriptions)
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .innerJoin(users, eq(users.id, subscriptions.userId))
    .innerJoin(planBuckets, and(eq(planBuckets.subscriptionId, subscriptions.id), eq(planBuckets.period, subscriptions.period)))
    .where(and(inArray(subscriptions.userId, [...new Set(userIds)]), isNull(subscriptions.endedAt)));
  return rows.map((r) => ({
    meter: 'plan',
    subjectId: r.id,
    period: r.periodStart.toISOString(),
    usedBytes: r.used,
    limitBytes: r.granted + r.carried,
    owner: { userId: r.userId, email: r.email, locale: r.locale, percents: r.percents },
    name: r.planName,
    subject: { subscriptionId: r.id, planId: r.planId },
  }));
}

/** After a gateway report: the usage alerts of the accounts its leases spent for and of their owners' plans. */
export async function checkUsageAlertsOfLeases(
  db: DbOrTx,
  mail: { mailer: DraftMailer; config: { publicUrl: string } },
  leaseIds: readonly string[],
  logger?: { error(obj: object, msg: string): void },
): Promise<UsageNotice[]> {
  const meters = [...(await proxyAccountMeters(db, await accountsOfLeases(db, leaseIds))), ...(await planMeters(db, await usersOfLeases(db, leaseIds)))];
  return checkUsageMeters(db, mail, meters, logger);
}

/** The user's usage alert percents (ascending). */
export async function getUsageAlertPercents(db: DbOrTx, userId: string): Promise<number[]> {
  const [row] = await db.select({ v: users.usageAlertPercents }).from(users).where(eq(users.id, userId));
  return row?.v ?? [];
}

/** Sets them; crossings already notified stay notified (a mark is the highest percent sent). */
export async function setUsageAlertPercents(db: DbOrTx, userId: string, percents: readonly number[]): Promise<void> {
  await db
    .update(users)
    .set({ usageAlertPercents: [...percents].sort((x, y) => x - y) })
    .where(eq(users.id, userId));
}
