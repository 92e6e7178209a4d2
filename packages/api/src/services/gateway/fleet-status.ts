/**
 * The public status page (GET /api/status): whether the proxy gateways answer now, and the fleet's
 * uptime by UTC day, counted from the heartbeats the gateways send every ~10 s.
 *
 * - A minute is up when at least one gateway's heartbeat reached the server in it: the product
 *   works when some gateway takes connections and the server that authorises and meters them
 *   answers. Heartbeats are counted as they arrive (one upsert each; the day's row moves once a
 *   minute), so nothing scans history.
 * - A day's uptime is its up minutes over the minutes counted since counting began (the first
 *   heartbeat ever), the current minute left out until it is over.
 * - Now: operational when every gateway of the fleet is up, degraded when some are down, down when
 *   none is up (or none has ever reported: nothing takes proxy connections). The fleet is the
 *   gateways heard from in the last day; one silent longer is taken as retired (scaled away), so a
 *   removed gateway does not leave the page degraded for ever.
 */
import { gte, lt, min, sql } from 'drizzle-orm';
import { gateways, uptimeDays, type DbOrTx } from '@proxyhub/db';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** A gateway silent this long is no longer counted in the fleet. */
export const GATEWAY_RETIRED_AFTER_MS = DAY_MS;
/** Days in the status page's bar. */
export const STATUS_DAYS = 90;
/** Days in `uptime30d`. */
const UPTIME_WINDOW_DAYS = 30;

export type FleetState = 'operational' | 'degraded' | 'down';
export interface FleetStatus {
  status: FleetState;
  gatewaysUp: number;
  gatewaysTotal: number;
  /** Percent over the last 30 days (today included), rounded down to 0.01; null before a day of data. */
  uptime30d: number | null;
  /** The last 90 UTC days, oldest first; `uptime` null for days before counting began. */
  days: Array<{ date: string; uptime: number | null }>;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Rounded down: 99.999 % is shown as 99.99, never as 100. */
const percent = (up: number, of: number) => Math.floor(Math.min(1, up / of) * 10_000) / 100;

/** Counts the minute of `now` as up for the fleet (once, however many heartbeats arrive in it). */
export async function countUpMinute(db: DbOrTx, now = new Date()): Promise<void> {
  const minute = new Date(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS);
  await db
    .insert(uptimeDays)
    .values({ day: dayOf(minute.getTime()), upMinutes: 1, firstMinuteAt: minute, lastMinuteAt: minute })
    .onConflictDoUpdate({
      target: uptimeDays.day,
      set: { upMinutes: sql`${uptimeDays.upMinutes} + 1`, lastMinuteAt: minute },
      // A later minute only: concurrent heartbeats of one minute count it once.
      setWhere: lt(uptimeDays.lastMinuteAt, minute),
    });
}

/** `downAfterMs`: the fleet's down interval (gateway-fleet.ts), which the admin's fleet view uses too. */
export async function fleetStatus(db: DbOrTx, opts: { downAfterMs: number; now?: number }): Promise<FleetStatus> {
  const now = opts.now ?? Date.now();
  const { downAfterMs } = opts;
  const nowMinute = Math.floor(now / MINUTE_MS) * MINUTE_MS;
  const todayStart = Date.parse(`${dayOf(now)}T00:00:00Z`);
  const firstDayStart = todayStart - (STATUS_DAYS - 1) * DAY_MS;

  const [fleet, rows, [began]] = await Promise.all([
    db
      .select({ lastSeenAt: gateways.lastSeenAt })
      .from(gateways)
      .where(gte(gateways.lastSeenAt, new Date(now - GATEWAY_RETIRED_AFTER_MS))),
    db
      .select()
      .from(uptimeDays)
      .where(gte(uptimeDays.day, dayOf(firstDayStart))),
    db.select({ at: min(uptimeDays.firstMinuteAt) }).from(uptimeDays),
  ]);
  const gatewaysTotal = fleet.length;
  const gatewaysUp = fleet.filter((g) => now - g.lastSeenAt.getTime() <= downAfterMs).length;
  const status: FleetState = gatewaysUp === 0 ? 'down' : gatewaysUp < gatewaysTotal ? 'degraded' : 'operational';

  const startedAt = began?.at ? began.at.getTime() : null;
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const counted = Array.from({ length: STATUS_DAYS }, (_, i) => {
    const dayStart = firstDayStart + i * DAY_MS;
    const date = dayOf(dayStart);
    const row = byDay.get(date);
    // Minutes counted this day: from when counting began, up to the current minute (not included).
    const from = startedAt === null ? Infinity : Math.max(dayStart, startedAt);
    const to = Math.min(dayStart + DAY_MS, nowMinute);
    const minutes = to > from ? (to - from) / MINUTE_MS : 0;
    const up = row ? row.upMinutes - (row.lastMinuteAt.getTime() === nowMinute ? 1 : 0) : 0;
    return { date, up, minutes };
  });
  const recent = counted.slice(-UPTIME_WINDOW_DAYS);
  const windowMinutes = recent.reduce((s, d) => s + d.minutes, 0);
  const hasDay = startedAt !== null && nowMinute - startedAt >= DAY_MS;
  return {
    status,
    gatewaysUp,
    gatewaysTotal,
    uptime30d:
      hasDay && windowMinutes > 0
        ? percent(
            recent.reduce((s, d) => s + d.up, 0),
            windowMinutes,
          )
        : null,
    days: counted.map((d) => ({ date: d.date, uptime: d.minutes > 0 ? percent(d.up, d.minutes) : null })),
  };
}
