/**
 * Incidents of the quality board: a country is degraded from the moment the share of its last 3
 * probes that passed falls below QUALITY_INCIDENT_OK_RATE until 3 probes in a row pass. Opening and
 * closing are conditional writes (one open incident per country, a unique index; a close only of
 * an open one), and the notices they owe to subscribers are written in the same transaction: each
 * subscriber hears once of each opening and each closing, however many servers look at once.
 */
import { and, desc, eq, isNotNull, isNull } from 'drizzle-orm';
import { DEFAULT_QUALITY_INCIDENT_OK_RATE } from '@proxyhub/core';
import { translatorFor } from '@proxyhub/core/i18n/server';
import { qualityIncidents, qualityProbes, statusNotices, statusSubscriptions, telegramOutbox, type DbOrTx } from '@proxyhub/db';
import type { ApiConfig } from '../../config';

/** Probes an incident is judged on: it opens on the last this many, and closes when this many pass. */
export const INCIDENT_WINDOW = 3;

export interface IncidentChange {
  country: string;
  incidentId: string;
  kind: 'opened' | 'closed';
}

/** A change in words, in the subscriber's language: an incident mail's intro and a subscribed chat's message. */
export const incidentWords = (locale: string | null | undefined, c: Pick<IncidentChange, 'country' | 'kind'>) =>
  translatorFor(locale)(c.kind === 'opened' ? 'statusIncident.opened' : 'statusIncident.closed', { ns: 'mail', country: c.country, window: INCIDENT_WINDOW });

/** Moves each country's incident as its last probes say; the changes made (and their notices queued). */
export async function updateIncidents(db: DbOrTx, countries: readonly string[], config: ApiConfig, now = new Date()): Promise<IncidentChange[]> {
  const threshold = config.quality?.incidentOkRate ?? DEFAULT_QUALITY_INCIDENT_OK_RATE;
  const changes: IncidentChange[] = [];
  for (const country of countries) {
    const last = await db
      .select({ ok: qualityProbes.ok })
      .from(qualityProbes)
      .where(eq(qualityProbes.country, country))
      .orderBy(desc(qualityProbes.at))
      .limit(INCIDENT_WINDOW);
    if (last.length < INCIDENT_WINDOW) continue;
    const okRate = last.filter((p) => p.ok).length / last.length;
    const change = await db.transaction(async (tx) => {
      const [open] = await tx
        .select({ id: qualityIncidents.id })
        .from(qualityIncidents)
        .where(and(eq(qualityIncidents.country, country), isNull(qualityIncidents.closedAt)));
      if (!open && okRate < threshold) {
        const [made] = await tx.insert(qualityIncidents).values({ country, openedAt: now }).onConflictDoNothing().returning({ id: qualityIncidents.id });
        return made ? await queueNotices(tx, { country, incidentId: made.id, kind: 'opened' }) : null;
      }
      if (open && okRate === 1) {
        const [closed] = await tx
          .update(qualityIncidents)
          .set({ closedAt: now })
          .where(and(eq(qualityIncidents.id, open.id), isNull(qualityIncidents.closedAt)))
          .returning({ id: qualityIncidents.id });
        return closed ? await queueNotices(tx, { country, incidentId: closed.id, kind: 'closed' }) : null;
      }
      return null;
    });
    if (change) changes.push(change);
  }
  return changes;
}

/** In the change's transaction: a notice row per confirmed mail subscriber, a Telegram message per subscribed chat. */
async function queueNotices(tx: DbOrTx, change: IncidentChange): Promise<IncidentChange> {
  const subs = await tx
    .select({ id: statusSubscriptions.id, chatId: statusSubscriptions.telegramChatId, locale: statusSubscriptions.locale })
    .from(statusSubscriptions)
    .where(isNotNull(statusSubscriptions.confirmedAt));
  const mails = subs.filter((s) => s.chatId === null);
  const chats = subs.flatMap((s) => (s.chatId === null ? [] : [{ chatId: s.chatId, locale: s.locale }]));
  if (mails.length)
    await tx
      .insert(statusNotices)
      .values(mails.map((s) => ({ subscriptionId: s.id, incidentId: change.incidentId, kind: change.kind })))
      .onConflictDoNothing();
  if (chats.length) await tx.insert(telegramOutbox).values(chats.map((c) => ({ chatId: c.chatId, text: incidentWords(c.locale, change) })));
  return change;
}

/** The countries with an open incident. */
export async function degradedCountries(db: DbOrTx): Promise<Set<string>> {
  const rows = await db.select({ country: qualityIncidents.country }).from(qualityIncidents).where(isNull(qualityIncidents.closedAt));
  return new Set(rows.map((r) => r.country));
}
