/**
 * Upstream pools: residential proxies bought from providers, where gateways send their traffic.
 * Admins manage them; the password is sealed with the secret box (as proxy passwords are) and only
 * gateways, over the internal API, ever get it back. Usage rows record which pool carried each
 * byte, so each pool's cost (its price per GB) sits beside the revenue ($0.90/GB) it brought.
 */
import { and, asc, eq, gte, isNotNull, sql } from 'drizzle-orm';
import type { SecretBox } from '@proxyhub/auth';
import {
  BYTES_PER_GB,
  costAboveSale,
  DomainError,
  presetPlaceholderIn,
  type CreateUpstreamInput,
  type Pricing,
  type UpdateUpstreamInput,
  upstreamUses,
} from '@proxyhub/core';
import { EgressError, resolveChecked } from '@proxyhub/core/node';
import { payments, upstreams, usageDaily, type DbOrTx } from '@proxyhub/db';
import { upstreamQualityByDay, type ConnectionQuality } from '../connection-log/reads';
import { getPricing } from '../money/pricing';
import { accountsOf, accountView, checkAccountInput, dryUpstreamIds, saveUpstreamAccount } from './provider-accounts';

export const UPSTREAM_NOT_FOUND = 'Upstream not found';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY_MS = 86_400_000;
/** Usage in the admin's list and per-day table: the last 30 UTC days, today included. */
export const UPSTREAM_USAGE_DAYS = 30;

type Row = typeof upstreams.$inferSelect;

/** Bytes at a price per GB, in cents rounded to the cent (integer arithmetic). */
export const centsForBytes = (bytes: bigint, centsPerGb: number) => Number((bytes * BigInt(centsPerGb) + BYTES_PER_GB / 2n) / BYTES_PER_GB);

export interface UpstreamUsage {
  bytes: number;
  costCents: number;
  revenueCents: number;
  marginCents: number;
}

function usageOf(bytes: bigint, costPerGbCents: number, soldPerGbCents: number): UpstreamUsage {
  const costCents = centsForBytes(bytes, costPerGbCents);
  const revenueCents = centsForBytes(bytes, soldPerGbCents);
  return { bytes: Number(bytes), costCents, revenueCents, marginCents: revenueCents - costCents };
}

/** What an admin sees of an upstream: everything but the password and the account's key (only whether one is set), and a warning when it sells at a loss. */
function view(r: Row, pricing: Pricing, account?: Parameters<typeof accountView>[0]) {
  return {
    id: r.id,
    name: r.name,
    protocol: r.protocol,
    host: r.host,
    port: r.port,
    usernameTemplate: r.usernameTemplate,
    passwordTemplate: r.passwordTemplate,
    hasPassword: r.passwordEnc !== '',
    countries: r.countries,
    weight: r.weight,
    costPerGbCents: r.costPerGbCents,
    maxSessionMinutes: r.maxSessionMinutes,
    enabled: r.enabled,
    costWarning: costAboveSale(r.name, r.costPerGbCents, pricing),
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    account: accountView(account),
  };
}

function usageWindow(now: number) {
  const today = now - (now % DAY_MS);
  return { start: today - (UPSTREAM_USAGE_DAYS - 1) * DAY_MS, end: today };
}

/** What a credited order brought in: its price, or what was paid of it while it is underpaid. */
export const paidCentsSql = sql`case when ${payments.status} = 'partially_paid' then coalesce(${payments.paidCents}, 0) else ${payments.priceCents} end`;

/**
 * What a GB was actually sold at: the paid crypto orders' cents over their GB (tiers, own rates and
 * partial payments included), the list price while nothing has been paid.
 */
export async function soldPricePerGbCents(db: DbOrTx): Promise<number> {
  const [r] = await db
    .select({
      cents: sql<string>`coalesce(sum(${paidCentsSql}), 0)`,
      bytes: sql<string>`coalesce(sum(${payments.creditedBytes}), 0)`,
    })
    .from(payments)
    .where(isNotNull(payments.creditedAt));
  const bytes = BigInt(r?.bytes ?? 0);
  return bytes > 0n ? Number((BigInt(r!.cents) * BYTES_PER_GB + bytes / 2n) / bytes) : (await getPricing(db)).pricePerGbCents;
}

/** Every upstream with its usage, cost, revenue and margin over the last 30 days. */
export async function listUpstreams(db: DbOrTx, now = Date.now()) {
  const { start } = usageWindow(now);
  const [rows, usage] = await Promise.all([
    db.select().from(upstreams).orderBy(asc(upstreams.createdAt), asc(upstreams.id)),
    db
      .select({ upstreamId: usageDaily.upstreamId, bytes: sql<string>`sum(${usageDaily.bytesUp} + ${usageDaily.bytesDown})::text` })
      .from(usageDaily)
      .where(gte(usageDaily.day, new Date(start)))
      .groupBy(usageDaily.upstreamId),
  ]);
  const bytesOf = new Map(usage.map((u) => [u.upstreamId, BigInt(u.bytes)]));
  const [sold, pricing] = await Promise.all([soldPricePerGbCents(db), getPricing(db)]);
  const accounts = await accountsOf(
    db,
    rows.map((r) => r.id),
  );
  return { upstreams: rows.map((r) => ({ ...view(r, pricing, accounts.get(r.id)), usage: usageOf(bytesOf.get(r.id) ?? 0n, r.costPerGbCents, sold) })) };
}

/** One upstream by id, or NOT_FOUND (a malformed id too). */
export async function findRow(db: DbOrTx, id: string, lock = false): Promise<Row> {
  if (!UUID_RE.test(id)) throw new DomainError('NOT_FOUND', UPSTREAM_NOT_FOUND);
  const q = db.select().from(upstreams).where(eq(upstreams.id, id));
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw new DomainError('NOT_FOUND', UPSTREAM_NOT_FOUND);
  return row;
}

/**
 * One upstream's traffic per UTC day over the last 30 days (zero-filled), at its current price, with
 * its connections' success rate and median connect time per day and over the 30 days (`quality`;
 * from the connection log, null where it holds none).
 */
export async function upstreamDailyUsage(db: DbOrTx, id: string, now = Date.now()) {
  const row = await findRow(db, id);
  const { start, end } = usageWindow(now);
  const rows = await db
    .select({
      day: sql<string>`(extract(epoch from ${usageDaily.day}) * 1000)::bigint::text`,
      bytes: sql<string>`sum(${usageDaily.bytesUp} + ${usageDaily.bytesDown})::text`,
    })
    .from(usageDaily)
    .where(and(eq(usageDaily.upstreamId, id), gte(usageDaily.day, new Date(start))))
    .groupBy(usageDaily.day);
  const byDay = new Map(rows.map((r) => [Number(r.day), BigInt(r.bytes)]));
  const days: Array<{ day: string } & UpstreamUsage & ConnectionQuality> = [];
  const sold = await soldPricePerGbCents(db);
  const quality = await upstreamQualityByDay(db, id, start, end);
  for (let d = end; d >= start; d -= DAY_MS) {
    const day = new Date(d).toISOString().slice(0, 10);
    days.push({ day, ...usageOf(byDay.get(d) ?? 0n, row.costPerGbCents, sold), ...(quality.days.get(day) ?? { okRate: null, p50ConnectMs: null }) });
  }
  return { upstream: view(row, await getPricing(db), (await accountsOf(db, [id])).get(id)), days, quality: quality.total, soldPricePerGbCents: sold };
}

/**
 * An upstream host on a loopback, private, link-local or metadata address (as written or as DNS
 * answers now) is refused unless private egress is allowed: the gateways would carry customers'
 * tunnels into our own network. The gateway checks again when it connects (DNS may change). A name
 * that does not resolve is accepted: it cannot be judged yet, and the gateway's check still holds.
 */
export async function checkUpstreamHost(host: string, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  try {
    await resolveChecked(host, false, 'Upstream');
  } catch (err) {
    if (err instanceof EgressError && err.kind === 'forbidden') {
      throw new DomainError('BAD_REQUEST', `host ${host} is a loopback, private, link-local or metadata address`);
    }
    if (!(err instanceof EgressError)) throw err;
  }
}

export interface UpstreamPolicy {
  allowPrivate: boolean;
}

export async function createUpstream(tx: DbOrTx, secrets: SecretBox, input: CreateUpstreamInput, policy: UpstreamPolicy = { allowPrivate: true }) {
  const { password, account, ...fields } = input;
  await checkUpstreamHost(fields.host, policy.allowPrivate);
  await checkAccountInput(account, policy);
  const [row] = await tx
    .insert(upstreams)
    .values({ ...fields, passwordEnc: secrets.encrypt(password) })
    .returning();
  await saveUpstreamAccount(tx, secrets, row!.id, account);
  return view(row!, await getPricing(tx), (await accountsOf(tx, [row!.id])).get(row!.id));
}

/**
 * Why a pool may not carry customers' traffic as stored (one saved before these checks): a preset's
 * placeholder left in a template, or no password. Null when it may.
 */
function enableProblem(r: Row): string | null {
  for (const [field, template] of [
    ['Username template', r.usernameTemplate],
    ['Password template', r.passwordTemplate],
  ] as const) {
    const placeholder = presetPlaceholderIn(template);
    if (placeholder) return `${field}: replace ${placeholder} with your account's`;
  }
  return r.passwordEnc === '' ? 'Password is required' : null;
}

export async function updateUpstream(tx: DbOrTx, secrets: SecretBox, input: UpdateUpstreamInput, policy: UpstreamPolicy = { allowPrivate: true }) {
  const { id, password, account, ...fields } = input;
  if (fields.host !== undefined) await checkUpstreamHost(fields.host, policy.allowPrivate);
  await checkAccountInput(account, policy);
  await findRow(tx, id, true);
  const set: Partial<typeof upstreams.$inferInsert> = { updatedAt: new Date() };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) (set as Record<string, unknown>)[k] = v;
  if (password !== undefined) set.passwordEnc = secrets.encrypt(password);
  const [row] = await tx.update(upstreams).set(set).where(eq(upstreams.id, id)).returning();
  await saveUpstreamAccount(tx, secrets, id, account);
  // Checked on the row as it would be saved: the transaction is rolled back with the refusal.
  const problem = row!.enabled ? enableProblem(row!) : null;
  if (problem) throw new DomainError('BAD_REQUEST', problem);
  return view(row!, await getPricing(tx), (await accountsOf(tx, [id])).get(id));
}

/** One upstream as the gateways dial it, password in clear (the server's own upstream test). */
export async function upstreamForDial(db: DbOrTx, secrets: SecretBox, id: string) {
  return dialOf(await findRow(db, id), secrets);
}

/** What a dial needs of a stored upstream: its endpoint, templates and the password in clear. */
function dialOf(r: Row, secrets: SecretBox) {
  return {
    protocol: r.protocol,
    host: r.host,
    port: r.port,
    usernameTemplate: r.usernameTemplate,
    passwordTemplate: r.passwordTemplate,
    password: r.passwordEnc ? secrets.decrypt(r.passwordEnc) : '',
  };
}

/** Usage rows keep the id: the history of a deleted pool's traffic stays in the totals. */
export async function deleteUpstream(tx: DbOrTx, id: string) {
  await findRow(tx, id, true);
  await tx.delete(upstreams).where(eq(upstreams.id, id));
  return { success: true as const, id };
}

/**
 * The enabled pools for the gateways, passwords in clear (internal key only). A pool whose provider
 * account is dry comes with `available: false`: gateways send it no new connection, and a country
 * only dry pools serve is refused rather than sent out another way.
 */
export async function gatewayUpstreams(db: DbOrTx, secrets: SecretBox) {
  const [rows, dry] = await Promise.all([
    db.select().from(upstreams).where(eq(upstreams.enabled, true)).orderBy(asc(upstreams.createdAt), asc(upstreams.id)),
    dryUpstreamIds(db),
  ]);
  return {
    upstreams: rows.map((r) => ({
      id: r.id,
      ...dialOf(r, secrets),
      countries: r.countries,
      weight: r.weight,
      available: !dry.has(r.id),
      maxSessionMinutes: r.maxSessionMinutes,
    })),
  };
}

/** The enabled pools serving `country`: their templates and longest sessions. */
async function poolsServing(db: DbOrTx, country: string) {
  const rows = await db
    .select({
      countries: upstreams.countries,
      max: upstreams.maxSessionMinutes,
      usernameTemplate: upstreams.usernameTemplate,
      passwordTemplate: upstreams.passwordTemplate,
    })
    .from(upstreams)
    .where(eq(upstreams.enabled, true));
  return rows.filter((r) => r.countries === null || r.countries.includes(country));
}

/** The shortest limit among these pools (a line may go through any of them), null when none has one. */
function shortestLimit(pools: ReadonlyArray<{ max: number | null }>): number | null {
  const limits = pools.map((r) => r.max).filter((m): m is number => m !== null);
  return limits.length ? Math.min(...limits) : null;
}

/**
 * The longest sticky session a line for `country` keeps its IP: the shortest limit among the
 * enabled pools serving it (a line may go through any of them), null when none has one.
 */
export async function sessionLimitFor(db: DbOrTx, country: string): Promise<{ country: string; maxSessionMinutes: number | null }> {
  return { country, maxSessionMinutes: shortestLimit(await poolsServing(db, country)) };
}

/**
 * What a line for `country` may ask for: whether some enabled pool serving it carries a ZIP, an
 * ASN, a hard session (its templates use {zip}, {asn}, {hard}; the gateway routes such lines only
 * there), and the longest session. None with no pool at all: direct egress ignores them.
 */
export async function countryOffer(db: DbOrTx, country: string): Promise<{ zip: boolean; asn: boolean; hard: boolean; maxSessionMinutes: number | null }> {
  const pools = await poolsServing(db, country);
  const carried = (name: 'zip' | 'asn' | 'hard') => pools.some((p) => upstreamUses(p, name));
  return { zip: carried('zip'), asn: carried('asn'), hard: carried('hard'), maxSessionMinutes: shortestLimit(pools) };
}

/** Every pool, and the price list itself, that costs more per GB than a GB is sold for: the overview's and Pricing tab's warnings. */
export async function costWarnings(db: DbOrTx): Promise<{ warnings: string[] }> {
  const [rows, pricing] = await Promise.all([
    db.select({ name: upstreams.name, cost: upstreams.costPerGbCents }).from(upstreams).orderBy(asc(upstreams.createdAt), asc(upstreams.id)),
    getPricing(db),
  ]);
  return { warnings: rows.map((r) => costAboveSale(r.name, r.cost, pricing)).filter((w): w is string => w !== null) };
}
