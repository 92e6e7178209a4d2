/**
 * Customers' webhooks. Protects our network from being used to reach itself (SSRF): a webhook URL
 * is https (plain http only to loopback, and only where private targets are allowed, as in tests),
 * and its host is refused when it is or resolves to a private, link-local or metadata address
 * whatever the private-egress setting (loopback is excepted only where private targets are
 * allowed), at creation and again at every delivery (DNS may change; we connect to the address we
 * checked). Events are written as outbox rows inside the transaction that made the change and sent
 * after it committed, so a slow or dead receiver never holds a change up and a restart loses
 * nothing. Each body is signed with the webhook's own secret.
 *
 * Receivers are isolated from each other (a hostile one trickled a byte every few seconds and held
 * every customer's deliveries for over a minute): an attempt has one deadline for the whole
 * exchange, only the status line is read, and the job sends each delivery on its own, one at a time
 * per webhook, so a slow receiver only ever waits for itself. Resends are limited per webhook.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gt, inArray, isNotNull, lte, notInArray, sql } from 'drizzle-orm';
import type { SecretBox } from '@proxyhub/auth';
import { DomainError, MAX_WEBHOOKS_PER_USER, WEBHOOK_SIGNATURE_HEADER, type WebhookEvent } from '@proxyhub/core';
import { proxyAccounts, users, webhookDeliveries, webhooks, type DbOrTx, type WebhookAttempt } from '@proxyhub/db';
import {
  before,
  checkOutboundUrl,
  httpsOnlyMessage,
  noAnswerMessage,
  privateHostMessage,
  sendToCheckedAddress,
  type OutboundPolicy,
} from '../lib/outbound-http';

export const WEBHOOK_NOT_FOUND = 'Webhook not found';
export const DELIVERY_NOT_FOUND = 'Delivery not found';
export const TOO_MANY_WEBHOOKS = `You can have at most ${MAX_WEBHOOKS_PER_USER} webhooks`;
export const WEBHOOK_HTTPS_ONLY = httpsOnlyMessage('URL');
export const WEBHOOK_PRIVATE_HOST = privateHostMessage('URL');
/** How many times a customer may press Resend on one webhook's deliveries in an hour. */
export const WEBHOOK_RESENDS_PER_HOUR = 10;
export const TOO_MANY_RESENDS = `At most ${WEBHOOK_RESENDS_PER_HOUR} resends per webhook per hour: try again later`;

/** One deadline for a whole attempt: resolving, connecting, sending and the answer's status line. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** The job claims what is due this often. */
export const WEBHOOK_TICK_MS = 1000;
/** Deliveries in flight at once in one process (each webhook has at most one). */
const MAX_IN_FLIGHT = 200;
/** The waits after each failed attempt: 10 s, 1 min, 5 min, 30 min, 2 h, then every 6 h for 24 h. */
export const WEBHOOK_RETRY_DELAYS_MS = [10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 21_600_000, 21_600_000, 21_600_000] as const;
/** A claimed delivery whose sender died is tried again after this. */
const CLAIM_MS = 2 * 60_000;

export type WebhookPolicy = OutboundPolicy;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export function signWebhookBody(secret: string, unixSeconds: number, body: string): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;
}

const checkedTarget = (raw: string, policy: WebhookPolicy) => checkOutboundUrl(raw, policy);

const view = (w: typeof webhooks.$inferSelect) => ({ id: w.id, url: w.url, events: w.events as WebhookEvent[], createdAt: w.createdAt.toISOString() });

/** Adds a webhook (at most MAX_WEBHOOKS_PER_USER); the secret is in this answer only. */
export async function createWebhook(tx: DbOrTx, secrets: SecretBox, input: { userId: string; url: string; events: WebhookEvent[] }, policy: WebhookPolicy) {
  const { address } = await checkedTarget(input.url, policy);
  // A name that does not resolve now cannot be judged; every delivery checks it again.
  void address;
  // The user's row lock makes the count and the insert one step under concurrent creations.
  await tx.select({ id: users.id }).from(users).where(eq(users.id, input.userId)).for('update');
  const [count] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(webhooks)
    .where(eq(webhooks.userId, input.userId));
  if ((count?.n ?? 0) >= MAX_WEBHOOKS_PER_USER) throw new DomainError('CONFLICT', TOO_MANY_WEBHOOKS);
  const secret = `whsec_${randomBytes(24).toString('hex')}`;
  const [row] = await tx
    .insert(webhooks)
    .values({ userId: input.userId, url: input.url, events: input.events, secretEnc: secrets.encrypt(secret) })
    .returning();
  return { webhook: view(row!), secret };
}

export async function listWebhooks(db: DbOrTx, userId: string) {
  const rows = await db.select().from(webhooks).where(eq(webhooks.userId, userId)).orderBy(asc(webhooks.createdAt));
  return { webhooks: rows.map(view) };
}

async function ownWebhook(db: DbOrTx, userId: string, id: string, lock = false) {
  if (!UUID_RE.test(id)) throw new DomainError('NOT_FOUND', WEBHOOK_NOT_FOUND);
  const query = db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.userId, userId)));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw new DomainError('NOT_FOUND', WEBHOOK_NOT_FOUND);
  return row;
}

/** Removes a webhook and its pending deliveries. */
export async function deleteWebhook(tx: DbOrTx, userId: string, id: string) {
  await ownWebhook(tx, userId, id);
  await tx.delete(webhooks).where(eq(webhooks.id, id));
  return { success: true as const };
}

const deliveryView = (d: typeof webhookDeliveries.$inferSelect) => ({
  id: d.id,
  eventId: d.eventId,
  type: d.eventType,
  status: d.status,
  attemptCount: d.attemptCount,
  attempts: d.attempts,
  nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
  createdAt: d.createdAt.toISOString(),
  deliveredAt: d.deliveredAt?.toISOString() ?? null,
  body: d.body,
});

/** The last 100 deliveries of a webhook, newest first, each with its attempts. */
export async function listDeliveries(db: DbOrTx, userId: string, id: string) {
  await ownWebhook(db, userId, id);
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, id))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(100);
  return { deliveries: rows.map(deliveryView) };
}

/**
 * Sends an event again as a new delivery (same event id, so a receiver can tell it is a repeat), at
 * most WEBHOOK_RESENDS_PER_HOUR times per webhook in an hour: each resend is a signed POST we make
 * on the customer's word. The webhook's row lock makes the count and the insert one step.
 */
export async function resendDelivery(tx: DbOrTx, userId: string, input: { id: string; deliveryId: string }) {
  await ownWebhook(tx, userId, input.id, true);
  if (!UUID_RE.test(input.deliveryId)) throw new DomainError('NOT_FOUND', DELIVERY_NOT_FOUND);
  const [d] = await tx
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, input.deliveryId), eq(webhookDeliveries.webhookId, input.id)));
  if (!d) throw new DomainError('NOT_FOUND', DELIVERY_NOT_FOUND);
  const [recent] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(webhookDeliveries)
    .where(
      and(eq(webhookDeliveries.webhookId, input.id), isNotNull(webhookDeliveries.resendOf), gt(webhookDeliveries.createdAt, sql`now() - interval '1 hour'`)),
    );
  if ((recent?.n ?? 0) >= WEBHOOK_RESENDS_PER_HOUR) throw new DomainError('TOO_MANY_REQUESTS', TOO_MANY_RESENDS);
  const [row] = await tx
    .insert(webhookDeliveries)
    .values({ webhookId: d.webhookId, eventId: d.eventId, eventType: d.eventType, body: d.body, resendOf: d.id })
    .returning();
  return { delivery: deliveryView(row!) };
}

/**
 * Records an event for the user's webhooks that subscribe to it: one outbox row each, in the
 * caller's transaction (so it exists exactly when the change does). `dedupeKey` makes repeats of
 * one event (noticed on every request) a single delivery.
 */
export async function emitWebhookEvent(tx: DbOrTx, event: { userId: string; type: WebhookEvent; data: Record<string, unknown>; dedupeKey?: string }) {
  const targets = await tx
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(and(eq(webhooks.userId, event.userId), sql`${event.type} = any(${webhooks.events})`));
  if (!targets.length) return;
  const eventId = randomUUID();
  const body = JSON.stringify({ id: eventId, type: event.type, createdAt: new Date().toISOString(), data: event.data });
  await tx
    .insert(webhookDeliveries)
    .values(targets.map((t) => ({ webhookId: t.id, eventId, eventType: event.type, body, dedupeKey: event.dedupeKey ?? null })))
    .onConflictDoNothing();
}

/** A proxy account was refused a lease at its own cap: one event per cap value. */
export async function emitProxyAccountLimitReached(tx: DbOrTx, proxyAccountIds: readonly string[]) {
  if (!proxyAccountIds.length) return;
  const rows = await tx
    .select({
      id: proxyAccounts.id,
      userId: proxyAccounts.userId,
      name: proxyAccounts.name,
      capBytes: proxyAccounts.capBytes,
      usedBytes: proxyAccounts.usedBytes,
    })
    .from(proxyAccounts)
    .where(inArray(proxyAccounts.id, [...proxyAccountIds]));
  for (const r of rows) {
    if (!r.userId || r.capBytes === null) continue;
    await emitWebhookEvent(tx, {
      userId: r.userId,
      type: 'proxy_account.limit_reached',
      data: { proxyAccountId: r.id, name: r.name, limit: 'cap', capBytes: String(r.capBytes), usedBytes: String(r.usedBytes) },
      dedupeKey: `limit_reached:${r.id}:cap:${r.capBytes}`,
    });
  }
}

const NO_ANSWER = noAnswerMessage(WEBHOOK_TIMEOUT_MS);

/** One attempt at one delivery: its result for the log. */
async function attempt(secrets: SecretBox, hook: { url: string; secretEnc: string }, body: string, now: Date, policy: WebhookPolicy): Promise<WebhookAttempt> {
  const started = Date.now();
  const deadline = started + WEBHOOK_TIMEOUT_MS;
  const done = (statusCode: number | null, error: string | null): WebhookAttempt => ({
    at: now.toISOString(),
    statusCode,
    error,
    durationMs: Date.now() - started,
  });
  try {
    const { url, address } = await before(checkedTarget(hook.url, policy), deadline, NO_ANSWER);
    if (!address) return done(null, `Cannot resolve ${url.hostname}`);
    const signature = signWebhookBody(secrets.decrypt(hook.secretEnc), Math.floor(now.getTime() / 1000), body);
    const { status } = await sendToCheckedAddress(
      url,
      address,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'ProxyHub-Webhooks/1', [WEBHOOK_SIGNATURE_HEADER]: signature },
        body,
        deadline,
        maxBodyBytes: 0,
      },
      NO_ANSWER,
    );
    return done(status, status >= 200 && status < 300 ? null : `HTTP ${status}`);
  } catch (err) {
    return done(null, err instanceof Error ? err.message : String(err));
  }
}

type ClaimedDelivery = typeof webhookDeliveries.$inferSelect;

/**
 * Claims the deliveries due at `now`, at most one per webhook and none of the webhooks in `busy`:
 * SKIP LOCKED, and pushed a little into the future, so two processes never send one delivery at
 * once and a sender that dies leaves it to be retried.
 */
async function claimDue(db: DbOrTx, now: Date, limit: number, busy: readonly string[] = []): Promise<ClaimedDelivery[]> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ id: webhookDeliveries.id, webhookId: webhookDeliveries.webhookId })
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.status, 'pending'),
          lte(webhookDeliveries.nextAttemptAt, now),
          busy.length ? notInArray(webhookDeliveries.webhookId, [...busy]) : undefined,
        ),
      )
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    const first = new Map<string, string>();
    for (const d of due) if (!first.has(d.webhookId)) first.set(d.webhookId, d.id);
    if (!first.size) return [];
    return tx
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(now.getTime() + CLAIM_MS) })
      .where(inArray(webhookDeliveries.id, [...first.values()]))
      .returning();
  });
}

/** Sends one claimed delivery and records the attempt: delivered, failed for good, or the next try. */
async function sendClaimed(
  db: DbOrTx,
  secrets: SecretBox,
  d: ClaimedDelivery,
  now: Date,
  policy: WebhookPolicy,
): Promise<'delivered' | 'failed' | 'retry' | 'gone'> {
  const [hook] = await db.select().from(webhooks).where(eq(webhooks.id, d.webhookId));
  if (!hook) return 'gone';
  const result = await attempt(secrets, hook, d.body, now, policy);
  const ok = result.error === null;
  const count = d.attemptCount + 1;
  const wait = WEBHOOK_RETRY_DELAYS_MS[count - 1];
  await db
    .update(webhookDeliveries)
    .set({
      attempts: sql`${webhookDeliveries.attempts} || ${JSON.stringify([result])}::jsonb`,
      attemptCount: count,
      status: ok ? 'delivered' : wait === undefined ? 'failed' : 'pending',
      deliveredAt: ok ? now : null,
      nextAttemptAt: ok || wait === undefined ? now : new Date(now.getTime() + wait),
    })
    .where(eq(webhookDeliveries.id, d.id));
  return ok ? 'delivered' : wait === undefined ? 'failed' : 'retry';
}

/**
 * Sends every delivery due at `now` and waits for them all: tests run the retry schedule with any
 * time. Deliveries of one webhook go one at a time, so this repeats until nothing is due.
 */
export async function deliverDueWebhooks(db: DbOrTx, secrets: SecretBox, opts: { now?: Date } & WebhookPolicy) {
  const now = opts.now ?? new Date();
  let attempted = 0;
  let delivered = 0;
  let failed = 0;
  for (;;) {
    const claimed = await claimDue(db, now, MAX_IN_FLIGHT);
    if (!claimed.length) return { attempted, delivered, failed };
    attempted += claimed.length;
    for (const outcome of await Promise.all(claimed.map((d) => sendClaimed(db, secrets, d, now, opts)))) {
      if (outcome === 'delivered') delivered++;
      else if (outcome === 'failed') failed++;
    }
  }
}

/**
 * The delivery job: every WEBHOOK_TICK_MS it claims what is due for the webhooks not already being
 * sent to and sends each delivery on its own, never waiting for the others, so a receiver that takes
 * its whole deadline delays no one else's delivery. `stop` waits for the attempts in flight.
 */
export function startWebhookSender(db: DbOrTx, secrets: SecretBox, policy: WebhookPolicy, onError: (err: unknown) => void, tickMs: number = WEBHOOK_TICK_MS) {
  const inFlight = new Map<string, Promise<unknown>>();
  let claiming: Promise<void> | null = null;
  let stopped = false;
  const claim = async () => {
    const now = new Date();
    const claimed = await claimDue(db, now, MAX_IN_FLIGHT - inFlight.size, [...inFlight.keys()]);
    // Stopped meanwhile: the claim lapses after CLAIM_MS and another run sends them.
    if (stopped) return;
    for (const d of claimed) {
      const sending = sendClaimed(db, secrets, d, now, policy)
        .catch(onError)
        .finally(() => inFlight.delete(d.webhookId));
      inFlight.set(d.webhookId, sending);
    }
  };
  const tick = () => {
    if (claiming || stopped || inFlight.size >= MAX_IN_FLIGHT) return;
    claiming = claim()
      .catch(onError)
      .finally(() => (claiming = null));
  };
  const timer = setInterval(tick, tickMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await claiming;
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
