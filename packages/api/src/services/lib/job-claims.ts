/**
 * Periodic jobs that must run on exactly one server of the fleet per period (reading every
 * provider's balance, the nightly reconcile): each server's timer asks `claimJobPeriod`, and only
 * the one whose INSERT of (job, period) lands runs the job; the others skip. An INSERT ... ON
 * CONFLICT DO NOTHING is atomic on PostgreSQL and PGlite alike, with no lock held past it.
 */
import { lt } from 'drizzle-orm';
import { jobClaims, type DbOrTx } from '@proxyhub/db';

/** Claims older than this are deleted as new ones are made (a day of 5-minute periods is 288 rows). */
const KEEP_CLAIMS_MS = 7 * 86_400_000;

/** The number of whole `periodMs` since the epoch at `now`: the period key of fixed-length jobs. */
export const periodNumber = (now: number, periodMs: number) => String(Math.floor(now / periodMs));

/**
 * True for the one caller that claims `job` for `period` first (it runs the job); false for every
 * other, on this server or another. `by` names the claimant (a server id) for whoever reads the rows.
 */
export async function claimJobPeriod(db: DbOrTx, job: string, period: string, by: string, now = new Date()): Promise<boolean> {
  const won = await db.insert(jobClaims).values({ job, period, claimedBy: by, claimedAt: now }).onConflictDoNothing().returning({ job: jobClaims.job });
  if (won.length) await db.delete(jobClaims).where(lt(jobClaims.claimedAt, new Date(now.getTime() - KEEP_CLAIMS_MS)));
  return won.length > 0;
}

/**
 * Runs `job` if this caller claims the period `now` falls in (periods of `periodMs` from the epoch);
 * what it returned, or null when another server has the period.
 */
export async function runOncePerPeriod<T>(
  db: DbOrTx,
  opts: { job: string; periodMs: number; by: string; now?: number },
  job: () => Promise<T>,
): Promise<T | null> {
  const now = opts.now ?? Date.now();
  if (!(await claimJobPeriod(db, opts.job, periodNumber(now, opts.periodMs), opts.by, new Date(now)))) return null;
  return job();
}
