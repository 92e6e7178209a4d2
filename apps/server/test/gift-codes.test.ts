import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gbToBytes } from '@proxyhub/core';
import { auditLog, creditEntries, topupCodes } from '@proxyhub/db';
import { expectLedgerOk } from './credits-helpers';
import { addCredits, expectLedgerHolds, RELAXED_LIMITS, signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

type Gift = { success: true; code: string; creditsBytes: number };
type GiftRow = { code: string; creditsBytes: number; creditsGB: string; createdAt: string; status: 'open' | 'redeemed' | 'cancelled' };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: RELAXED_LIMITS });
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

const GB = gbToBytes(1);
const credits = async (client: HttpClient) => (await client.get<{ user: { credits: number } }>('/auth/user')).body.user.credits;

async function userWith(bytes: bigint) {
  const u = await signedInUser(server);
  if (bytes > 0n) await addCredits(server, u.user.id, bytes);
  return u;
}

describe('gift codes from one own balance', () => {
  it('takes the bytes from the giver, and anyone else redeems them once with the code path', async () => {
    const giver = await userWith(5n * GB);
    const r = await giver.client.post<Gift>('/api/gift-codes', { creditsGB: 1.5 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ success: true, code: expect.stringMatching(/^[A-HJKMNP-Z2-9]{16}$/), creditsBytes: 1610612736 });
    expect(await credits(giver.client)).toBe(Number(5n * GB) - 1610612736);

    const friend = await signedInUser(server);
    const redeemed = await friend.client.post('/auth/redeem-code', { code: r.body.code.toLowerCase() });
    expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
    expect(redeemed.body).toMatchObject({ success: true, credits: 1536, newBalance: 1610612736 });
    const again = await (await signedInUser(server)).client.post('/auth/redeem-code', { code: r.body.code });
    expect(again).toMatchObject({ status: 409, body: { success: false, error: 'This code has already been redeemed.' } });

    const list = await giver.client.get<{ giftCodes: GiftRow[] }>('/api/gift-codes');
    expect(list.body.giftCodes).toEqual([
      expect.objectContaining({ code: r.body.code, creditsBytes: 1610612736, creditsGB: '1.50', status: 'redeemed', createdAt: expect.any(String) }),
    ]);
    // A redeemed gift cannot be taken back.
    const cancel = await giver.client.request('DELETE', `/api/gift-codes/${r.body.code}`);
    expect(cancel).toMatchObject({ status: 409, body: { success: false, error: 'This gift code has already been redeemed' } });
    expect(await credits(giver.client)).toBe(Number(5n * GB) - 1610612736);
    await expectLedgerHolds(server, giver.user.id);
    await expectLedgerHolds(server, friend.user.id);
  });

  it('a balance too small is a 402 with nothing taken', async () => {
    const giver = await userWith(gbToBytes(0.5));
    const before = await server.deps.db.select().from(topupCodes);
    const r = await giver.client.post('/api/gift-codes', { creditsGB: 0.6 });
    expect(r).toMatchObject({ status: 402, body: { success: false, error: 'Not enough data for this gift' } });
    expect(await credits(giver.client)).toBe(Number(gbToBytes(0.5)));
    expect(await server.deps.db.select().from(topupCodes)).toHaveLength(before.length);
    expect(await server.deps.db.select().from(creditEntries).where(eq(creditEntries.userId, giver.user.id))).toHaveLength(1);
    // Exactly the balance is fine.
    expect((await giver.client.post('/api/gift-codes', { creditsGB: 0.5 })).status).toBe(200);
    expect(await credits(giver.client)).toBe(0);
  });

  it('refuses bad input with a 400 naming the field, and strangers', async () => {
    const giver = await userWith(GB);
    for (const [body, error] of [
      [{ creditsGB: 0.05 }, 'Credits must be at least 0.1 GB'],
      [{ creditsGB: 0.25 }, 'Credits must be in steps of 0.1 GB'],
      [{ creditsGB: '1' }, 'Credits (GB) must be a number'],
      [{}, 'Credits (GB) must be a number'],
    ] as const) {
      expect(await giver.client.post('/api/gift-codes', body)).toMatchObject({ status: 400, body: { success: false, error } });
    }
    expect(await credits(giver.client)).toBe(Number(GB));
    expect((await server.client().post('/api/gift-codes', { creditsGB: 1 })).status).toBe(401);
    expect((await server.client().get('/api/gift-codes')).status).toBe(401);
  });

  it('cancelling an unredeemed gift returns the bytes once; the code then redeems as unknown; another user cannot cancel it', async () => {
    const giver = await userWith(2n * GB);
    const { body } = await giver.client.post<Gift>('/api/gift-codes', { creditsGB: 1 });
    const other = await signedInUser(server);
    expect(await other.client.request('DELETE', `/api/gift-codes/${body.code}`)).toMatchObject({
      status: 404,
      body: { success: false, error: 'No such gift code of yours' },
    });
    const [a, b] = await Promise.all([
      giver.client.request('DELETE', `/api/gift-codes/${body.code.toLowerCase()}`),
      giver.client.request('DELETE', `/api/gift-codes/${body.code}`),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const ok = a.status === 200 ? a : b;
    expect(ok.body).toMatchObject({ success: true, code: body.code, returnedBytes: Number(GB), newCredits: Number(2n * GB) });
    expect(await credits(giver.client)).toBe(Number(2n * GB));
    expect(await other.client.post('/auth/redeem-code', { code: body.code })).toMatchObject({
      status: 404,
      body: { error: 'Invalid code. Please check the code and try again.' },
    });
    const list = await giver.client.get<{ giftCodes: GiftRow[] }>('/api/gift-codes');
    expect(list.body.giftCodes.map((g) => g.status)).toEqual(['cancelled']);
    await expectLedgerHolds(server, giver.user.id);
  });

  it('a redeem and a cancel racing: exactly one wins and the bytes are in exactly one wallet', async () => {
    for (let i = 0; i < 5; i++) {
      const giver = await userWith(GB);
      const friend = await signedInUser(server);
      const { body } = await giver.client.post<Gift>('/api/gift-codes', { creditsGB: 1 });
      const [redeem, cancel] = await Promise.all([
        friend.client.post('/auth/redeem-code', { code: body.code }),
        giver.client.request('DELETE', `/api/gift-codes/${body.code}`),
      ]);
      expect([redeem.status, cancel.status].filter((s) => s === 200)).toHaveLength(1);
      expect((await credits(giver.client)) + (await credits(friend.client))).toBe(Number(GB));
    }
  });

  it('20 concurrent gifts against a balance for 5 take exactly 5 gifts', async () => {
    const giver = await userWith(5n * GB);
    const results = await Promise.all(Array.from({ length: 20 }, () => giver.client.post<Gift>('/api/gift-codes', { creditsGB: 1 })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 402)).toHaveLength(15);
    expect(await credits(giver.client)).toBe(0);
    expect(await server.deps.db.select().from(topupCodes).where(eq(topupCodes.giftedBy, giver.user.id))).toHaveLength(5);
    await expectLedgerHolds(server, giver.user.id);
  });

  it('shows on both sides in billing, and is audited', async () => {
    const giver = await userWith(3n * GB);
    const friend = await signedInUser(server);
    const kept = await giver.client.post<Gift>('/api/gift-codes', { creditsGB: 1 });
    const taken = await giver.client.post<Gift>('/api/gift-codes', { creditsGB: 0.5 });
    await giver.client.request('DELETE', `/api/gift-codes/${kept.body.code}`);
    await friend.client.post('/auth/redeem-code', { code: taken.body.code });
    type Billing = { entries: Array<{ kind: string; bytes: string; description: string; reference: string | null }> };
    const mine = (await giver.client.get<Billing>('/api/billing')).body.entries.filter((e) => e.kind === 'gift');
    expect(mine).toEqual([
      expect.objectContaining({ bytes: String(GB), description: `Gift code ${kept.body.code} cancelled, data returned`, reference: kept.body.code }),
      expect.objectContaining({ bytes: String(gbToBytes(0.5) * -1n), description: `Gift code ${taken.body.code} created`, reference: taken.body.code }),
      expect.objectContaining({ bytes: String(-GB), description: `Gift code ${kept.body.code} created`, reference: kept.body.code }),
    ]);
    const theirs = (await friend.client.get<Billing>('/api/billing')).body.entries;
    expect(theirs).toEqual([expect.objectContaining({ kind: 'gift', bytes: String(gbToBytes(0.5)), description: `Gift code ${taken.body.code} redeemed` })]);
    const audit = await server.deps.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.actor, `user:${giver.user.id}`));
    expect(audit.map((a) => a.action).sort()).toEqual(['gift.cancel', 'gift.create', 'gift.create']);
    expect(JSON.stringify(audit)).not.toContain(kept.body.code);
  });
});
