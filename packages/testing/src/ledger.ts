import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { checkLedger, checkUserLedger, credit } from '@proxyhub/api';
import type { TestServer } from './server';

/** The ledger invariant of docs/design.md over the whole database, checked after every test. */
export async function expectLedgerOk(server: TestServer) {
  const r = await checkLedger(server.deps.db);
  expect(r, `ledger: entries ${r.entries} = credits ${r.credits} + leased ${r.leased} + usage ${r.usage}`).toMatchObject({ ok: true });
}

/** The invariant in total and for one user's wallet; returns that user's figures. */
export async function expectLedgerHolds(server: TestServer, userId: string) {
  const all = await checkLedger(server.database.db);
  const mine = await checkUserLedger(server.database.db, userId);
  if (!all.ok || !mine.ok)
    throw new Error(`ledger invariant broken: ${JSON.stringify({ all, mine }, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
  return mine;
}

/** Credits a user as an admin adjustment would (no API grants bytes without a code or payment). */
export function addCredits(server: TestServer, userId: string, bytes: bigint) {
  return server.database.db.transaction((tx) => credit(tx, { wallet: { userId }, bytes, kind: 'admin_adjustment', sourceKey: `test:${randomUUID()}` }));
}
