/**
 * The user's billing history: every ledger entry of their wallet (codes, batches, adjustments,
 * refunds) and every crypto order they placed, paid or not, newest first. A paid order is shown
 * once, as the order (its ledger entry is the same money). Pages are keyed by (time, id) with the
 * database's microseconds, so an entry is never skipped or repeated between pages.
 */
import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { BILLING_PAGE_DEFAULT, centsToUsd, DomainError, formatGb, type BillingKind, type BillingLine, type OrderStep, type Seller } from '@proxyhub/core';
import { batches, creditEntries, paymentEvents, payments, topupCodes, users, type DbOrTx, type PAYMENT_STATUSES } from '@proxyhub/db';
import { billingLineWords, type LineFormats } from '@proxyhub/core/i18n';
import { lookUpFor } from '@proxyhub/core/i18n/server';
import { getSeller } from '../site/seller';

export interface BillingEntry {
  id: string;
  createdAt: string;
  kind: BillingKind;
  /** Signed, as a decimal string. */
  bytes: string;
  /** The line in English; `line` says it for any language. */
  description: string;
  line: BillingLine;
  reference: string | null;
  /** Crypto orders only. */
  history?: { status: OrderStep; at: string }[];
  /** Crypto orders only: the invoice to pay (the rest of) it on, while it is waiting or part-paid; else null. */
  invoiceUrl?: string | null;
  /** Crypto orders only: nothing paid yet, so the customer may cancel it. */
  cancellable?: boolean;
}

export interface BillingPage {
  entries: BillingEntry[];
  nextCursor: string | null;
}

interface Row {
  id: string;
  /** created_at to the microsecond, UTC, fixed width: sorts as text and round-trips exactly. */
  at: string;
  createdAt: Date;
}

const exactTime = (col: AnyPgColumn) => sql<string>`to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const BAD_CURSOR = 'The page cursor is not valid';

function decodeCursor(cursor: string | undefined): { at: string; id: string } | null {
  if (!cursor) return null;
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!at || !id || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(at) || !/^[0-9a-f-]{36}$/.test(id)) throw new DomainError('BAD_REQUEST', BAD_CURSOR);
  return { at, id };
}
const encodeCursor = (r: Row) => Buffer.from(`${r.at}|${r.id}`).toString('base64url');

/** Newest first: later time, then larger id (as the database orders uuids). */
const newerFirst = (a: Row, b: Row) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1);

const STEP_OF: Record<(typeof PAYMENT_STATUSES)[number], OrderStep> = {
  waiting: 'waiting',
  confirming: 'confirming',
  confirmed: 'confirming',
  sending: 'confirming',
  partially_paid: 'confirming',
  finished: 'paid',
  failed: 'failed',
  refunded: 'refunded',
  expired: 'expired',
  cancelled: 'cancelled',
};
const stepOf = (status: string): OrderStep | null => STEP_OF[status as keyof typeof STEP_OF] ?? null;

/** What is left to pay of an underpaid order. */
const owedCents = (o: { priceCents: number; paidCents: number | null }) => Math.max(0, o.priceCents - (o.paidCents ?? 0));

/** An admin's reason is for staff (it may say anything about the customer); the customer reads a plain line. */
function adjustmentLine(note: string | null, forStaff: boolean): BillingLine {
  if (!forStaff) return { key: 'adjustment', values: {} };
  return note ? { key: 'adjustmentNote', values: { note } } : { key: 'adjustmentByAdmin', values: {} };
}

const english = lookUpFor('en');
const ENGLISH_FORMATS: LineFormats = {
  number: String,
  cents: (c) => `$${centsToUsd(c)}`,
  bytes: (b) => `${formatGb(BigInt(b))} GB`,
};
/** A line with its English words as the description (what programs have always read). */
const described = (line: BillingLine) => ({
  line,
  description: billingLineWords((key, values) => english(key, { ...values, ns: 'billing' }), line, ENGLISH_FORMATS),
});

/** `forStaff`: the admin's view of the user's history, which names the admin behind each adjustment. */
export async function listBilling(
  db: DbOrTx,
  userId: string,
  input: { limit?: number | undefined; cursor?: string | undefined },
  opts: { forStaff?: boolean } = {},
): Promise<BillingPage> {
  const limit = input.limit ?? BILLING_PAGE_DEFAULT;
  const cursor = decodeCursor(input.cursor);
  const before = (at: AnyPgColumn, id: AnyPgColumn) => (cursor ? sql`(${at}, ${id}) < (${cursor.at}::timestamptz, ${cursor.id}::uuid)` : undefined);

  // Each side is read up to one page past the cursor, then merged: both use the user's index.
  const [ledger, orders] = await Promise.all([
    db
      .select({
        id: creditEntries.id,
        at: exactTime(creditEntries.createdAt),
        createdAt: creditEntries.createdAt,
        kind: creditEntries.kind,
        bytes: creditEntries.amountBytes,
        sourceKey: creditEntries.sourceKey,
        note: creditEntries.note,
      })
      .from(creditEntries)
      .where(and(eq(creditEntries.userId, userId), ne(creditEntries.kind, 'payment'), before(creditEntries.createdAt, creditEntries.id)))
      .orderBy(desc(creditEntries.createdAt), desc(creditEntries.id))
      .limit(limit + 1),
    db
      .select({
        id: payments.id,
        at: exactTime(payments.createdAt),
        createdAt: payments.createdAt,
        gbAmount: payments.gbAmount,
        priceCents: payments.priceCents,
        creditsBytes: payments.creditsBytes,
        creditedBytes: payments.creditedBytes,
        creditedAt: payments.creditedAt,
        status: payments.status,
        paidCents: payments.paidCents,
        invoiceUrl: payments.invoiceUrl,
        planId: payments.planId,
      })
      .from(payments)
      .where(and(eq(payments.userId, userId), before(payments.createdAt, payments.id)))
      .orderBy(desc(payments.createdAt), desc(payments.id))
      .limit(limit + 1),
  ]);

  type Tagged = Row & ({ from: 'ledger'; row: (typeof ledger)[number] } | { from: 'order'; row: (typeof orders)[number] });
  const merged: Tagged[] = [
    ...ledger.map((row) => ({ id: row.id, at: row.at, createdAt: row.createdAt, from: 'ledger' as const, row })),
    ...orders.map((row) => ({ id: row.id, at: row.at, createdAt: row.createdAt, from: 'order' as const, row })),
  ].sort(newerFirst);
  const page = merged.slice(0, limit);
  const nextCursor = merged.length > limit ? encodeCursor(page.at(-1)!) : null;

  // Names for references, one query per kind of source.
  const idsAfter = (prefixes: string[]) =>
    page.flatMap((e) => {
      if (e.from !== 'ledger') return [];
      const [prefix, id] = e.row.sourceKey.split(/:(.*)/s);
      return prefixes.includes(prefix!) && id ? [id] : [];
    });
  const codeIds = idsAfter(['code', 'gift', 'gift-cancel']);
  const batchIds = idsAfter(['batch-in', 'batch-lease-in']);
  const orderIds = page.flatMap((e) => (e.from === 'order' ? [e.id] : []));
  const [codes, batchCodes, events] = await Promise.all([
    codeIds.length
      ? db.select({ id: topupCodes.id, code: topupCodes.code, gift: topupCodes.giftedBy }).from(topupCodes).where(inArray(topupCodes.id, codeIds))
      : [],
    batchIds.length ? db.select({ id: batches.id, code: batches.batchCode }).from(batches).where(inArray(batches.id, batchIds)) : [],
    orderIds.length
      ? db
          .select({ paymentId: paymentEvents.paymentId, status: paymentEvents.status, at: paymentEvents.createdAt })
          .from(paymentEvents)
          .where(inArray(paymentEvents.paymentId, orderIds))
          .orderBy(paymentEvents.createdAt, paymentEvents.id)
      : [],
  ]);
  const codeById = new Map(codes.map((c) => [c.id, c.code]));
  const giftIds = new Set(codes.flatMap((c) => (c.gift ? [c.id] : [])));
  const batchById = new Map(batchCodes.map((b) => [b.id, b.code]));

  const entries = page.map((e): BillingEntry => {
    const base = { id: e.id, createdAt: e.createdAt.toISOString() };
    if (e.from === 'order') {
      const o = e.row;
      const history: { status: OrderStep; at: string }[] = [{ status: 'created', at: o.createdAt.toISOString() }];
      for (const ev of events) {
        if (ev.paymentId !== o.id) continue;
        const step = stepOf(ev.status);
        // Deliveries repeat (providers retry); a step is shown once, when first reached.
        if (step && !history.some((h) => h.status === step)) history.push({ status: step, at: ev.at.toISOString() });
      }
      return {
        ...base,
        kind: 'crypto',
        // A plan order's bytes are the plan grant's own entry: the order itself adds none.
        bytes: o.planId ? '0' : o.creditedBytes.toString(),
        ...described(
          o.planId
            ? { key: 'planPayment', values: { gb: o.gbAmount, cents: o.priceCents } }
            : o.status === 'partially_paid'
              ? {
                  key: 'cryptoPartial',
                  values: { gb: o.gbAmount, cents: o.priceCents, creditedBytes: o.creditedBytes.toString(), owedCents: owedCents(o) },
                }
              : { key: 'cryptoPayment', values: { gb: o.gbAmount, cents: o.priceCents } },
        ),
        reference: o.id,
        history,
        invoiceUrl: o.status === 'waiting' || o.status === 'partially_paid' ? o.invoiceUrl : null,
        cancellable: o.status === 'waiting',
      };
    }
    const r = e.row;
    const [prefix, sourceId = ''] = r.sourceKey.split(/:(.*)/s);
    const bytes = r.bytes.toString();
    switch (r.kind) {
      case 'code': {
        // A promotion's use: its code is the entry's note.
        if (prefix === 'promotion')
          return { ...base, kind: 'code', bytes, ...described({ key: 'promotion', values: { code: r.note ?? '' } }), reference: r.note };
        const code = codeById.get(sourceId) ?? null;
        if (giftIds.has(sourceId))
          return { ...base, kind: 'gift', bytes, ...described({ key: 'giftRedeemed', values: { code: code ?? '' } }), reference: code };
        return { ...base, kind: 'code', bytes, ...described({ key: 'topupCode', values: { code: code ?? '' } }), reference: code };
      }
      case 'gift': {
        const code = codeById.get(sourceId) ?? null;
        const key = prefix === 'gift-cancel' ? 'giftCancelled' : 'giftCreated';
        return { ...base, kind: 'gift', bytes, ...described({ key, values: { code: code ?? '' } }), reference: code };
      }
      case 'referral':
        return { ...base, kind: 'referral', bytes, ...described({ key: 'referral', values: {} }), reference: null };
      case 'plan_grant':
        return { ...base, kind: 'plan', bytes, ...described({ key: 'planGrant', values: {} }), reference: null };
      case 'plan_expire':
        return { ...base, kind: 'plan', bytes, ...described({ key: 'planExpire', values: {} }), reference: null };
      case 'batch':
      case 'batch_association': {
        const code = batchById.get(sourceId) ?? null;
        const key = prefix === 'batch-lease-in' ? 'batchLeasesMoved' : 'batchAssociated';
        return { ...base, kind: 'batch', bytes, ...described({ key, values: { code: code ?? '' } }), reference: code };
      }
      case 'admin_adjustment':
        return { ...base, kind: 'adjustment', bytes, ...described(adjustmentLine(r.note, !!opts.forStaff)), reference: null };
      case 'reversal':
      case 'payment':
        if (prefix === 'payment-reversal') return { ...base, kind: 'refund', bytes, ...described({ key: 'refund', values: {} }), reference: sourceId };
        return {
          ...base,
          kind: 'reversal',
          bytes,
          ...described(r.note ? { key: 'reversalNote', values: { note: r.note } } : { key: 'reversal', values: {} }),
          reference: null,
        };
    }
  });
  return { entries, nextCursor };
}

export interface Receipt {
  paymentId: string;
  /** `<year>-<number>`, gapless per UTC year. */
  receiptNumber: string;
  seller: Pick<Seller, 'companyName' | 'address' | 'supportEmail'>;
  /** The user's name, or their email when they gave none. */
  buyer: { name: string; email: string };
  paidAt: string;
  amountUsd: string;
  gb: number;
  bytesCredited: string;
  gbCredited: string;
  provider: string;
  providerPaymentId: string | null;
  /** Why the order's promotion bonus was not credited (a first-purchase bonus after another purchase); null otherwise. */
  bonusNote: string | null;
}

export const NO_RECEIPT = 'No receipt: this order does not exist or was not paid';

/** The receipt of one of the user's paid orders; anything else (another user's, unpaid) is not found. */
export async function paymentReceipt(db: DbOrTx, userId: string, paymentId: string): Promise<Receipt> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(paymentId)) throw new DomainError('NOT_FOUND', NO_RECEIPT);
  const [row] = await db
    .select({ o: payments, name: users.name, email: users.email })
    .from(payments)
    .innerJoin(users, eq(users.id, payments.userId))
    .where(and(eq(payments.id, paymentId), eq(payments.userId, userId)))
    .limit(1);
  const o = row?.o;
  if (!row || !o?.creditedAt || !o.receiptNumber) throw new DomainError('NOT_FOUND', NO_RECEIPT);
  const { companyName, address, supportEmail } = await getSeller(db);
  return {
    paymentId: o.id,
    receiptNumber: o.receiptNumber,
    seller: { companyName, address, supportEmail },
    buyer: { name: row.name.trim() || row.email, email: row.email },
    paidAt: o.creditedAt.toISOString(),
    amountUsd: centsToUsd(o.paidCents !== null && o.paidCents < o.priceCents && o.status !== 'finished' ? o.paidCents : o.priceCents),
    gb: o.gbAmount,
    bytesCredited: o.creditedBytes.toString(),
    gbCredited: formatGb(o.creditedBytes),
    provider: o.provider,
    providerPaymentId: o.providerPaymentId,
    bonusNote: o.bonusNote,
  };
}
