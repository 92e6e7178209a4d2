/**
 * Crypto payments. Threats: a client choosing its own price (the server recomputes it in cents and
 * refuses a disagreeing one), forged or replayed webhooks (signature checked in constant time, the
 * payment re-read from the provider, the credit keyed on the payment so it happens once), a changed
 * amount (the provider's amount must equal the order's), out-of-order deliveries (a status never
 * moves backwards).
 */
import { and, count, desc, eq, gt, ilike, inArray, lte, sql, type SQL } from 'drizzle-orm';
import { BYTES_PER_GB, centsToUsd, DomainError, minOrderGb, minOrderMessage, ORDER_IDEMPOTENCY_MINUTES } from '@proxyhub/core';
import { paymentEvents, payments, plans, users, type DbOrTx, type PAYMENT_STATUSES } from '@proxyhub/db';
import { inBackground, kickTelegram, type ApiDeps } from '../../deps';
import { paymentProvider, ProviderError, type PaymentProvider, type ProviderName, type ProviderPayment } from '../../payments';
import { checkBalanceAlerts } from '../notify/balance-alerts';
import { isUniqueViolation } from '../lib/db-errors';
import { containsPattern } from '../lib/like';
import { priceOrder } from './pricing';
import { nextReceiptNumber } from './receipt-numbers';
import { claimOrderBonus, orderBonus } from './promotions';
import { onOrderCredited, onOrderRefunded, referralSettings, type ReferralSettings } from './referrals';
import { notifyTelegram } from '../notify/telegram';
import { figures } from '../../mail';
import { credit, walletCredits, walletRemaining } from './wallet';
import { emitWebhookEvent } from '../notify/webhooks';
import { planOrderPaid, planToSubscribe } from './subscriptions';

export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Order of statuses: a delivery only moves a payment forward (a late "waiting" after "finished" changes nothing). */
const RANK: Record<PaymentStatus, number> = {
  waiting: 0,
  confirming: 1,
  confirmed: 2,
  sending: 3,
  partially_paid: 3,
  expired: 4,
  failed: 4,
  cancelled: 4,
  finished: 5,
  refunded: 6,
};
const isStatus = (s: string): s is PaymentStatus => s in RANK;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const PRICE_MISMATCH = (gb: number, cents: number) => `Price mismatch: ${gb}GB costs $${centsToUsd(cents)}. Please refresh and try again.`;
export const PAYMENT_CREATED = 'Payment created. Complete the payment on the invoice page.';

function activeProvider(deps: ApiDeps): PaymentProvider {
  const p = paymentProvider(deps.config, deps.config.payments.provider);
  if (!p) throw new DomainError('SERVICE_UNAVAILABLE', 'Crypto payments are not available right now. Please try again later.');
  return p;
}

export interface CreatedPayment {
  paymentId: string;
  invoiceUrl: string;
  message: string;
}

const INVOICE_UNREACHABLE = 'The payment provider is not reachable right now. Please try again later.';
/** How long a repeat waits for the first request's invoice (the provider call's own bound is shorter). */
const REPEAT_WAIT_MS = 30_000;

/** Orders made before this no longer answer for their key. */
const keyWindowStart = () => sql`now() - make_interval(mins => ${ORDER_IDEMPOTENCY_MINUTES}::int)`;

/**
 * The answer a repeat of an order gets: the first request's, once its invoice exists (the first
 * may still be asking the provider, so a repeat waits for it; polling, because that request may be
 * in another server process).
 */
async function repeatAnswer(deps: ApiDeps, paymentId: string): Promise<CreatedPayment> {
  const deadline = Date.now() + REPEAT_WAIT_MS;
  for (;;) {
    const [p] = await deps.db.select({ invoiceUrl: payments.invoiceUrl, status: payments.status }).from(payments).where(eq(payments.id, paymentId));
    if (p?.invoiceUrl) return { paymentId, invoiceUrl: p.invoiceUrl, message: PAYMENT_CREATED };
    if (!p || p.status === 'failed' || Date.now() > deadline) throw new DomainError('SERVICE_UNAVAILABLE', INVOICE_UNREACHABLE);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The user's order under this key made within the window, if any. */
async function orderUnderKey(db: DbOrTx, userId: string, key: string): Promise<string | undefined> {
  const [row] = await db
    .select({ id: payments.id })
    .from(payments)
    .where(and(eq(payments.userId, userId), eq(payments.idempotencyKey, key), gt(payments.createdAt, keyWindowStart())))
    .limit(1);
  return row?.id;
}

/**
 * Creates an order at the server's price and an invoice with the configured provider. With an
 * idempotency key, a repeat within ORDER_IDEMPOTENCY_MINUTES (a double click, a retried request)
 * answers the first order: the unique (user, key) index decides between concurrent repeats.
 */
export async function createCryptoPayment(
  deps: ApiDeps,
  input: { userId: string; gbAmount: number; priceUsd: number; promoCode?: string | null | undefined; idempotencyKey?: string | undefined },
): Promise<CreatedPayment> {
  const key = input.idempotencyKey;
  if (key) {
    const earlier = await orderUnderKey(deps.db, input.userId, key);
    if (earlier) return repeatAnswer(deps, earlier);
  }
  const { pricing, totalCents: priceCents } = await priceOrder(deps.db, input.userId, input.gbAmount);
  if (input.gbAmount < minOrderGb(pricing)) throw new DomainError('BAD_REQUEST', minOrderMessage(pricing));
  if (Math.round(input.priceUsd * 100) !== priceCents) throw new DomainError('BAD_REQUEST', PRICE_MISMATCH(input.gbAmount, priceCents));
  const provider = activeProvider(deps);
  let payment;
  try {
    payment = await insertOrder(deps, provider, { ...input, priceCents });
  } catch (e) {
    if (!key || !isUniqueViolation(e)) throw e;
    // A concurrent repeat inserted first: answer its order.
    const earlier = await orderUnderKey(deps.db, input.userId, key);
    if (!earlier) throw e;
    return repeatAnswer(deps, earlier);
  }
  return openInvoice(deps, provider, payment, input.gbAmount, priceCents);
}

/**
 * An order for one period of a plan, at the plan's price, paid on an invoice as a top-up is: the
 * same provider, webhook and idempotency. Paid, it credits the plan's allowance (subscriptions.ts),
 * never pay-as-you-go GB. Without `subscriptionId` the plan must be one the user may subscribe to.
 */
export async function createPlanPayment(
  deps: ApiDeps,
  input: { userId: string; planId: string; subscriptionId?: string; idempotencyKey?: string | undefined },
): Promise<CreatedPayment> {
  const key = input.idempotencyKey;
  if (key) {
    const earlier = await orderUnderKey(deps.db, input.userId, key);
    if (earlier) return repeatAnswer(deps, earlier);
  }
  const plan = input.subscriptionId
    ? (await deps.db.select().from(plans).where(eq(plans.id, input.planId)))[0]!
    : await planToSubscribe(deps.db, { userId: input.userId, planId: input.planId });
  const provider = activeProvider(deps);
  let payment;
  try {
    payment = await insertOrder(deps, provider, {
      userId: input.userId,
      gbAmount: plan.gbPerPeriod,
      priceCents: plan.priceCents,
      idempotencyKey: key,
      planId: plan.id,
      subscriptionId: input.subscriptionId ?? null,
    });
  } catch (e) {
    if (!key || !isUniqueViolation(e)) throw e;
    const earlier = await orderUnderKey(deps.db, input.userId, key);
    if (!earlier) throw e;
    return repeatAnswer(deps, earlier);
  }
  return openInvoice(deps, provider, payment, plan.gbPerPeriod, plan.priceCents, `ProxyHub plan ${plan.name}: ${plan.gbPerPeriod} GB a ${plan.period}`);
}

async function insertOrder(
  deps: ApiDeps,
  provider: PaymentProvider,
  input: {
    userId: string;
    gbAmount: number;
    priceCents: number;
    promoCode?: string | null | undefined;
    idempotencyKey?: string | undefined;
    planId?: string;
    subscriptionId?: string | null;
  },
) {
  const { priceCents } = input;
  return deps.db.transaction(async (tx) => {
    // A key past its window is free again: its old order lets go of it.
    if (input.idempotencyKey)
      await tx
        .update(payments)
        .set({ idempotencyKey: null })
        .where(and(eq(payments.userId, input.userId), eq(payments.idempotencyKey, input.idempotencyKey), lte(payments.createdAt, keyWindowStart())));
    // A bonus code changes what the order credits, not its price; an unusable one is a 400 and no order.
    const bonus = input.promoCode ? await orderBonus(tx, { userId: input.userId, code: input.promoCode, gbAmount: input.gbAmount }) : null;
    const bonusBytes = bonus?.bonusBytes ?? 0n;
    const [row] = await tx
      .insert(payments)
      .values({
        userId: input.userId,
        provider: provider.name,
        gbAmount: input.gbAmount,
        priceCents,
        creditsBytes: BigInt(input.gbAmount) * BYTES_PER_GB + bonusBytes,
        bonusBytes,
        promotionId: bonus?.promotionId ?? null,
        status: 'waiting',
        idempotencyKey: input.idempotencyKey ?? null,
        planId: input.planId ?? null,
        subscriptionId: input.subscriptionId ?? null,
      })
      .returning();
    await tx.insert(paymentEvents).values({ paymentId: row!.id, status: 'waiting', source: 'created' });
    return row!;
  });
}

async function openInvoice(
  deps: ApiDeps,
  provider: PaymentProvider,
  payment: { id: string },
  gbAmount: number,
  priceCents: number,
  description = `ProxyHub ${gbAmount} GB`,
): Promise<CreatedPayment> {
  const base = deps.config.publicUrl;
  let invoice;
  try {
    invoice = await provider.createInvoice({
      orderId: payment.id,
      priceCents,
      description,
      ipnCallbackUrl: new URL(`/webhooks/${provider.name}`, base).toString(),
      successUrl: new URL('/topup?payment=finished', base).toString(),
      cancelUrl: new URL('/topup?payment=failed', base).toString(),
    });
  } catch (err) {
    deps.logger.error({ err, paymentId: payment.id }, 'invoice creation failed');
    await deps.db.transaction(async (tx) => {
      await tx.update(payments).set({ status: 'failed', updatedAt: new Date() }).where(eq(payments.id, payment.id));
      await tx.insert(paymentEvents).values({ paymentId: payment.id, status: 'failed', source: 'invoice_error' });
    });
    throw new DomainError('SERVICE_UNAVAILABLE', INVOICE_UNREACHABLE);
  }
  await deps.db
    .update(payments)
    .set({ providerInvoiceId: invoice.invoiceId, invoiceUrl: invoice.invoiceUrl, updatedAt: new Date() })
    .where(eq(payments.id, payment.id));
  return { paymentId: payment.id, invoiceUrl: invoice.invoiceUrl, message: PAYMENT_CREATED };
}

export const ORDER_NOT_FOUND = 'Order not found';
export const NOT_CANCELLABLE = 'Only an order waiting for payment can be cancelled';

/**
 * The customer gives up a waiting order. Only `waiting` moves (the conditional UPDATE decides
 * against a payment arriving at the same moment); a payment the provider reports later still
 * credits, as for an expired order.
 */
export async function cancelCryptoPayment(tx: DbOrTx, input: { userId: string; paymentId: string }): Promise<{ paymentId: string; status: 'cancelled' }> {
  if (!UUID_RE.test(input.paymentId)) throw new DomainError('NOT_FOUND', ORDER_NOT_FOUND);
  const [row] = await tx
    .update(payments)
    .set({ status: 'cancelled', updatedAt: new Date() })
    .where(and(eq(payments.id, input.paymentId), eq(payments.userId, input.userId), eq(payments.status, 'waiting')))
    .returning({ id: payments.id });
  if (!row) {
    const [exists] = await tx
      .select({ id: payments.id })
      .from(payments)
      .where(and(eq(payments.id, input.paymentId), eq(payments.userId, input.userId)));
    throw exists ? new DomainError('CONFLICT', NOT_CANCELLABLE) : new DomainError('NOT_FOUND', ORDER_NOT_FOUND);
  }
  await tx.insert(paymentEvents).values({ paymentId: row.id, status: 'cancelled', source: 'customer' });
  return { paymentId: row.id, status: 'cancelled' };
}

export interface NotificationResult {
  paymentId: string;
  status: PaymentStatus;
  credited: boolean;
}

export const INVALID_SIGNATURE = 'Invalid signature';
export const UNKNOWN_ORDER = 'Unknown order';

/**
 * One code path for every provider's webhook: verify the signature, find our order, re-read the
 * payment from the provider, check the amount, then apply the status in a transaction that locks
 * the order row. Refused deliveries write nothing.
 */
export async function receivePaymentNotification(
  deps: ApiDeps,
  providerName: ProviderName,
  body: unknown,
  header: (name: string) => string | undefined,
): Promise<NotificationResult> {
  const provider = paymentProvider(deps.config, providerName);
  if (!provider) throw new DomainError('NOT_FOUND', `The ${providerName} payment provider is not enabled`);
  const note = provider.verifyNotification(body, header);
  if (!note) throw new DomainError('UNAUTHORIZED', INVALID_SIGNATURE);
  if (!UUID_RE.test(note.orderId)) throw new DomainError('NOT_FOUND', UNKNOWN_ORDER);
  const [order] = await deps.db
    .select()
    .from(payments)
    .where(and(eq(payments.id, note.orderId), eq(payments.provider, providerName)))
    .limit(1);
  if (!order) throw new DomainError('NOT_FOUND', UNKNOWN_ORDER);

  let truth: ProviderPayment;
  try {
    truth = await provider.fetchPayment(note);
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    deps.logger.warn({ err, paymentId: order.id }, 'payment re-read failed');
    throw new DomainError('SERVICE_UNAVAILABLE', 'Could not confirm the payment with the provider; retry later');
  }
  if (truth.orderId !== order.id) throw new DomainError('BAD_REQUEST', 'The payment does not belong to this order');
  for (const p of [note, truth]) {
    if (p.priceCents !== order.priceCents || (p.priceCurrency ?? 'usd') !== 'usd') {
      deps.logger.warn({ paymentId: order.id, expected: order.priceCents, got: p.priceCents, currency: p.priceCurrency }, 'payment amount mismatch');
      throw new DomainError('BAD_REQUEST', 'The payment amount does not match the order');
    }
  }

  const result = await deps.db.transaction((tx) =>
    applyStatus(tx, {
      paymentId: order.id,
      status: truth.status,
      paidCents: truth.paidCents ?? null,
      providerPaymentId: truth.paymentId,
      payerId: truth.payerId ?? null,
      source: `${providerName}:webhook`,
      payload: body,
      referrals: referralSettings(deps.config),
      now: deps.now?.(),
    }),
  );
  kickTelegram(deps);
  // After commit and off the provider's answer: a credit re-arms the buyer's low-balance alert at
  // once (not at the next sweep), a refund may cross below the threshold and mail.
  inBackground(deps, 'balance alerts', () => checkBalanceAlerts(deps.db, deps, [order.userId], deps.logger));
  return result;
}

type Order = typeof payments.$inferSelect;

/**
 * The one place an order's credit is applied. Brings what the order has credited up to `target`
 * ('full', or the share of `paidCents` in its price), never past the order's bytes (GB plus bonus):
 * only the difference is credited, under the order's row lock, so repeated, late or reordered
 * notifications cannot credit twice. The first credit counts the order's bonus as a use of its
 * promotion (dropped, with its reason kept for the receipt, if the promotion filled up or the user bought
 * something else meanwhile). Returns the bytes newly credited.
 */
async function creditOrder(
  tx: DbOrTx,
  order: Order,
  target: 'full' | { paidCents: number },
): Promise<{ credited: bigint; creditsBytes: bigint; bonusBytes: bigint; bonusNote: string | null; sourceKey: string }> {
  let { creditsBytes, bonusBytes, bonusNote } = order;
  if (order.creditedBytes === 0n && bonusBytes > 0n) {
    bonusNote = await claimOrderBonus(tx, order);
    if (bonusNote !== null) {
      creditsBytes -= bonusBytes;
      bonusBytes = 0n;
    }
  }
  const share = target === 'full' ? creditsBytes : (creditsBytes * BigInt(Math.max(0, target.paidCents))) / BigInt(order.priceCents);
  const total = share < creditsBytes ? share : creditsBytes;
  const delta = total - order.creditedBytes;
  if (delta <= 0n) return { credited: 0n, creditsBytes, bonusBytes, bonusNote, sourceKey: '' };
  // The first credit keeps the key `payment:<id>`; a rest is keyed by the total it reaches, so each step is written once.
  const sourceKey = order.creditedBytes === 0n ? `payment:${order.id}` : `payment:${order.id}:${total}`;
  const done = await credit(tx, { wallet: { userId: order.userId }, bytes: delta, kind: 'payment', sourceKey });
  return { credited: done === null ? 0n : delta, creditsBytes, bonusBytes, bonusNote, sourceKey };
}

/**
 * Records the delivery and moves the order forward: `partially_paid` credits the paid share (and
 * more on a later, larger partial delivery), `finished` the rest; `refunded` reverses what was credited.
 */
async function applyStatus(
  tx: DbOrTx,
  input: {
    paymentId: string;
    status: string;
    paidCents: number | null;
    providerPaymentId: string | null;
    payerId: string | null;
    source: string;
    payload: unknown;
    referrals: ReferralSettings;
    now?: Date;
  },
): Promise<NotificationResult> {
  // Row lock: concurrent deliveries of the same order apply one after another.
  const [order] = await tx.select().from(payments).where(eq(payments.id, input.paymentId)).for('update');
  if (!order) throw new DomainError('NOT_FOUND', UNKNOWN_ORDER);
  await tx.insert(paymentEvents).values({ paymentId: order.id, status: input.status, source: input.source, payload: input.payload });
  const current = order.status;
  const morePaid = input.status === 'partially_paid' && current === 'partially_paid';
  if (!isStatus(input.status) || (RANK[input.status] <= RANK[current] && !morePaid)) {
    return { paymentId: order.id, status: current, credited: false };
  }
  const next = input.status;
  let { creditedAt, creditedBytes, creditsBytes, bonusBytes, bonusNote, receiptNumber } = order;
  const payerId = order.payerId ?? input.payerId;
  let credited = false;
  const target = next === 'finished' ? 'full' : next === 'partially_paid' && input.paidCents !== null ? { paidCents: input.paidCents } : null;
  if (order.planId) {
    // A plan period is paid whole or not at all: a partial payment waits for the rest.
    if (next === 'finished' && creditedBytes === 0n) {
      await planOrderPaid(tx, { userId: order.userId, planId: order.planId, gbAmount: order.gbAmount }, input.now ?? new Date());
      credited = true;
      creditedBytes = creditsBytes;
      creditedAt ??= new Date();
      await emitWebhookEvent(tx, {
        userId: order.userId,
        type: 'payment.credited',
        data: { paymentId: order.id, gbAmount: order.gbAmount, priceCents: order.priceCents, creditedBytes: String(creditsBytes), planId: order.planId },
      });
      await notifyTelegram(tx, { userId: order.userId }, (t, lng) => t('notify.planPaymentCredited', { ns: 'bot', gb: figures.wholeGb(lng, order.gbAmount) }));
    }
  } else if (target) {
    const r = await creditOrder(tx, order, target);
    ({ creditsBytes, bonusBytes, bonusNote } = r);
    if (r.credited > 0n) {
      credited = true;
      creditedBytes += r.credited;
      creditedAt ??= new Date();
      await emitWebhookEvent(tx, {
        userId: order.userId,
        type: 'payment.credited',
        data: { paymentId: order.id, gbAmount: order.gbAmount, priceCents: order.priceCents, creditedBytes: String(r.credited) },
      });
      // The referrer earns on the GB bought, not on a promotion's bonus: this step's share of them.
      const bought = r.creditsBytes > 0n ? (r.credited * (r.creditsBytes - r.bonusBytes)) / r.creditsBytes : 0n;
      await onOrderCredited(tx, input.referrals, { paymentId: order.id, userId: order.userId, bytes: bought, source: r.sourceKey, payerId });
      const remaining = await walletRemaining(tx, { userId: order.userId });
      await notifyTelegram(tx, { userId: order.userId }, (t, lng) =>
        t('notify.paymentCredited', { ns: 'bot', credited: figures.gb(lng, r.credited), remaining: figures.gb(lng, remaining) }),
      );
    }
  }
  // A refunded plan period is not taken back from the allowance here (the operator settles it by hand).
  if (next === 'refunded' && creditedBytes > 0n && !order.planId) {
    await onOrderRefunded(tx, { paymentId: order.id });
    // Take back what is left of it: the balance may already be partly spent and cannot go below zero.
    const available = await walletCredits(tx, { userId: order.userId }, { lock: true });
    const amount = available < creditedBytes ? available : creditedBytes;
    await credit(tx, {
      wallet: { userId: order.userId },
      bytes: -amount,
      kind: 'reversal',
      sourceKey: `payment-reversal:${order.id}`,
      note: amount < creditedBytes ? `refund: ${creditedBytes - amount} bytes already used` : 'refund',
    });
  }
  // A credited order is a receipt: its number is taken in this transaction (gapless per year), last,
  // so the year's counter row is locked only for the final write (no wallet lock is taken after it).
  if (creditedAt && !receiptNumber) receiptNumber = await nextReceiptNumber(tx, creditedAt);
  const paidCents = next === 'partially_paid' && input.paidCents !== null ? Math.max(input.paidCents, order.paidCents ?? 0) : order.paidCents;
  await tx
    .update(payments)
    .set({
      status: next,
      creditedAt,
      receiptNumber,
      creditedBytes,
      creditsBytes,
      bonusBytes,
      bonusNote,
      paidCents,
      providerPaymentId: order.providerPaymentId ?? input.providerPaymentId,
      payerId,
      updatedAt: new Date(),
    })
    .where(eq(payments.id, order.id));
  return { paymentId: order.id, status: next, credited };
}

export interface PaymentView {
  id: string;
  provider: string;
  gbAmount: number;
  priceCents: number;
  creditsBytes: bigint;
  bonusBytes: bigint;
  creditedBytes: bigint;
  paidCents: number | null;
  status: (typeof PAYMENT_STATUSES)[number];
  /** The provider's invoice page (pay, or pay the rest); null until it exists. */
  invoiceUrl: string | null;
  createdAt: Date;
  creditedAt: Date | null;
  events: Array<{ status: string; source: string; createdAt: Date }>;
}

async function withEvents<T extends { id: string }>(db: DbOrTx, rows: T[]): Promise<Array<T & { events: PaymentView['events'] }>> {
  if (!rows.length) return [];
  const events = await db
    .select({ paymentId: paymentEvents.paymentId, status: paymentEvents.status, source: paymentEvents.source, createdAt: paymentEvents.createdAt })
    .from(paymentEvents)
    .where(
      inArray(
        paymentEvents.paymentId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(paymentEvents.createdAt, paymentEvents.id);
  const byPayment = new Map<string, PaymentView['events']>();
  for (const e of events) {
    const list = byPayment.get(e.paymentId) ?? [];
    list.push({ status: e.status, source: e.source, createdAt: e.createdAt });
    byPayment.set(e.paymentId, list);
  }
  return rows.map((r) => ({ ...r, events: byPayment.get(r.id) ?? [] }));
}

const paymentColumns = {
  id: payments.id,
  provider: payments.provider,
  gbAmount: payments.gbAmount,
  priceCents: payments.priceCents,
  creditsBytes: payments.creditsBytes,
  bonusBytes: payments.bonusBytes,
  creditedBytes: payments.creditedBytes,
  paidCents: payments.paidCents,
  status: payments.status,
  invoiceUrl: payments.invoiceUrl,
  createdAt: payments.createdAt,
  creditedAt: payments.creditedAt,
};

/** The user's own orders, newest first, each with its status history. */
export async function listUserPayments(db: DbOrTx, userId: string): Promise<PaymentView[]> {
  const rows = await db
    .select(paymentColumns)
    .from(payments)
    .where(eq(payments.userId, userId))
    .orderBy(desc(payments.createdAt), desc(payments.id))
    .limit(200);
  return withEvents(db, rows);
}

/** Every order for the admin, newest first; by provider status, and by user email or order id (`q`). */
export async function listAllPayments(
  db: DbOrTx,
  input: { status?: PaymentStatus | undefined; q?: string | undefined; page?: number | undefined; pageSize?: number | undefined } = {},
) {
  const page = input.page ?? 1;
  const pageSize = input.pageSize ?? 50;
  const filters: SQL[] = [];
  if (input.status) filters.push(eq(payments.status, input.status));
  const q = input.q?.trim();
  if (q) filters.push(UUID_RE.test(q) ? eq(payments.id, q) : ilike(users.email, containsPattern(q)));
  const where = filters.length ? and(...filters) : undefined;
  const [rows, [total]] = await Promise.all([
    db
      .select({ ...paymentColumns, userEmail: users.email })
      .from(payments)
      .innerJoin(users, eq(users.id, payments.userId))
      .where(where)
      .orderBy(desc(payments.createdAt), desc(payments.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ n: count() }).from(payments).innerJoin(users, eq(users.id, payments.userId)).where(where),
  ]);
  return { payments: await withEvents(db, rows), total: Number(total?.n ?? 0) };
}

/** What the sandbox page shows about an order (null when unknown or not a sandbox order). */
export async function sandboxOrder(db: DbOrTx, paymentId: string) {
  if (!UUID_RE.test(paymentId)) return null;
  const [row] = await db
    .select()
    .from(payments)
    .where(and(eq(payments.id, paymentId), eq(payments.provider, 'sandbox')))
    .limit(1);
  return row ?? null;
}
