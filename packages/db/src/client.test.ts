import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from './schema';
import { createTestDb } from './testing';

describe('createDb', () => {
  it('migrates and round-trips bigint bytes on the configured driver', async () => {
    const database = await createTestDb();
    try {
      const [u] = await database.db
        .insert(users)
        .values({ email: 'x@y.co', name: 'X', apiKeyHash: 'h', apiKeyEnc: 'e', creditsBytes: 9_007_199_254_740_993n })
        .returning();
      const [back] = await database.db.select().from(users).where(eq(users.id, u!.id));
      expect(back!.creditsBytes).toBe(9_007_199_254_740_993n);
      await expect(database.db.update(users).set({ creditsBytes: -1n }).where(eq(users.id, u!.id))).rejects.toThrow();
    } finally {
      await database.close();
    }
  });
});
