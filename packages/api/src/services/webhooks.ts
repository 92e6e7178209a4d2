/**
 * Customers' webhooks. Protects our network from being used to reach itself (SSRF): a webhook URL
 * is https (plain http only to loopback, and only where private targets are allowed, as in tests),
 * and its host is refused when it is or resolves to a private, loopback, link-local or metadata
 * address, at creation and again at every delivery (DNS may change; we connect to the address we
 * checked). Events are written as outbox rows inside the transaction that made the change and sent
 * by `deliverDueWebhooks` after it committed, so a slow or dead receiver never holds a change up
 * and a restart loses nothing. Each body is signed with the webhook's own secret.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { and, asc, desc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { SecretBox } from '@proxyhub/auth';
import { DomainError, MAX_WEBHOOKS_PER_USER, WEBHOOK_SIGNATURE_HEADER, type WebhookEvent } from '@proxyhub/core';
import { proxyAccounts, users, webhookDeliveries, webhooks, type DbOrTx, type WebhookAttempt } from '@proxyhub/db';
import { checkOutboundUrl, httpsOnlyMessage, privateHostMessage, sendToCheckedAddress, type OutboundPolicy } from './outbound-http';

export const WEBHOOK_NOT_FOUND = 'Webhook not found';
export const DELIVERY_NOT_FOUND = 'Delivery not found';
export const TOO_MANY_WEBHOOKS = `You can have at most ${MAX_WEBHOOKS_PER_USER} webhooks`;
export const WEBHOOK_HTTPS_ONLY = httpsOnlyMessage('URL');
export const WEBHOOK_PRIVATE_HOST = privateHostMessage('URL');

/** How long a receiver has to answer. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
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

async function ownWebhook(db: DbOrTx, userId: string, id: string) {
  if (!UUID_RE.test(id)) throw new DomainError('NOT_FOUND', WEBHOOK_NOT_FOUND);
  const [row] = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.userId, userId)));
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

/** Sends an event again as a new delivery (same event id, so a receiver can tell it is a repeat). */
export async function resendDelivery(tx: DbOrTx, userId: string, input: { id: string; deliveryId: string }) {
  await ownWebhook(tx, userId, input.id);
  if (!UUID_RE.test(input.deliveryId)) throw new DomainError('NOT_FOUND', DELIVERY_NOT_FOUND);
  const [d] = await tx
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, input.deliveryId), eq(webhookDeliveries.webhookId, input.id)));
  if (!d) throw new DomainError('NOT_FOUND', DELIVERY_NOT_FOUND);
  const [row] = await tx.insert(webhookDeliveries).values({ webhookId: d.webhookId, eventId: d.eventId, eventType: d.eventType, body: d.body }).returning();
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

/** One attempt at one delivery: its result for the log. */
async function attempt(secrets: SecretBox, hook: { url: string; secretEnc: string }, body: string, now: Date, policy: WebhookPolicy): Promise<WebhookAttempt> {
  const started = Date.now();
  const done = (statusCode: number | null, error: string | null): WebhookAttempt => ({
    at: now.toISOString(),
    statusCode,
    error,
    durationMs: Date.now() - started,
  });
  try {
    const { url, address } = await checkedTarget(hook.url, policy);
    if (!address) return done(null, `Cannot resolve ${url.hostname}`);
    const signature = signWebhookBody(secrets.decrypt(hook.secretEnc), Math.floor(now.getTime() / 1000), body);
    const { status } = await sendToCheckedAddress(url, address, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'ProxyHub-Webhooks/1', [WEBHOOK_SIGNATURE_HEADER]: signature },
      body,
      timeoutMs: WEBHOOK_TIMEOUT_MS,
      maxBodyBytes: 0,
    });
    return done(status, status >= 200 && status < 300 ? null : `HTTP ${status}`);
  } catch (err) {
    return done(null, err instanceof Error ? err.message : String(err));
  }
}

/**
 * Sends the deliveries due at `now` (at most `limit`); the periodic job calls it with the clock,
 * tests with any time. Rows are claimed first (SKIP LOCKED, and pushed a little into the future) so
 * two processes never send one delivery at once, and a sender that dies leaves it to be retried.
 */
export async function deliverDueWebhooks(db: DbOrTx, secrets: SecretBox, opts: { now?: Date; limit?: number } & WebhookPolicy) {
  const now = opts.now ?? new Date();
  const claimed = await db.transaction(async (tx) => {
    const due = await tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.nextAttemptAt, now)))
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(opts.limit ?? 50)
      .for('update', { skipLocked: true });
    if (!due.length) return [];
    return tx
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(now.getTime() + CLAIM_MS) })
      .where(
        inArray(
          webhookDeliveries.id,
          due.map((d) => d.id),
        ),
      )
      .returning();
  });
  let delivered = 0;
  let failed = 0;
  await Promise.all(
    claimed.map(async (d) => {
      const [hook] = await db.select().from(webhooks).where(eq(webhooks.id, d.webhookId));
      if (!hook) return;
      const result = await attempt(secrets, hook, d.body, now, opts);
      const ok = result.error === null;
      const count = d.attemptCount + 1;
      const wait = WEBHOOK_RETRY_DELAYS_MS[count - 1];
      if (ok) delivered++;
      else if (wait === undefined) failed++;
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
    }),
  );
  return { attempted: claimed.length, delivered, failed };
}
