/**
 * API keys with scopes. Protects the account against a leaked or over-powerful key: a key is found
 * by its keyed hash (the secret is never stored in clear and shown once), does only what its scopes
 * say, stops at its expiry, and is refused outside the networks it was limited to.
 */
import { and, asc, count, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { newApiKey, type SecretBox, type UserAccount } from '@proxyhub/auth';
import {
  API_KEY_ADDRESS_REFUSED,
  API_KEY_EXPIRED,
  API_KEY_LAST_USED_EVERY_MS,
  API_KEY_NOT_FOUND,
  API_KEY_PREFIX_CHARS,
  API_KEY_SCOPES,
  AllowlistMatcher,
  DEFAULT_API_KEY_NAME,
  DEFAULT_KEY_KEPT,
  DomainError,
  MAX_API_KEYS,
  TOO_MANY_API_KEYS,
  roleRefusal,
  type ApiKeyScope,
  type ApiKeyView,
  type TeamRole,
  type CreatedApiKey,
  type createApiKeyInput,
} from '@proxyhub/core';
import { apiKeys, users, type DbOrTx } from '@proxyhub/db';
import type { z } from 'zod';

type KeyRow = typeof apiKeys.$inferSelect;

const prefixOf = (secret: string) => secret.slice(0, API_KEY_PREFIX_CHARS);

function view(row: KeyRow, defaultKeyEnc: string | null, secrets: SecretBox): ApiKeyView {
  // A Default key copied by the migration has no prefix stored: its ciphertext on the user still shows it.
  const prefix = row.prefix || (row.isDefault && defaultKeyEnc ? prefixOf(secrets.decrypt(defaultKeyEnc)) : '');
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes.filter((s): s is ApiKeyScope => (API_KEY_SCOPES as readonly string[]).includes(s)),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    allowedCidrs: row.allowedCidrs,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    prefix,
    isDefault: row.isDefault,
  };
}

/** A team member's role: the scopes a key they make or delete may hold at most. */
export interface RoleLimit {
  role: TeamRole;
  scopes: readonly ApiKeyScope[];
}

/** A member must not mint (or take away) a key more powerful than they are. */
function refuseBeyondRole(scopes: readonly string[], within: RoleLimit | null): void {
  const beyond = within && scopes.find((s) => !(within.scopes as readonly string[]).includes(s));
  if (within && beyond) throw new DomainError('FORBIDDEN', roleRefusal(within.role, beyond as ApiKeyScope));
}

/** Sets the account's Default key (every scope) to this secret: made with the account, replaced by `auth.rotateApiKey`. */
export async function setDefaultKey(tx: DbOrTx, secrets: SecretBox, userId: string, secret: string): Promise<void> {
  const keyHash = secrets.lookupHash(secret);
  const [updated] = await tx
    .update(apiKeys)
    .set({ keyHash, prefix: prefixOf(secret), lastUsedAt: null })
    .where(and(eq(apiKeys.userId, userId), eq(apiKeys.isDefault, true)))
    .returning({ id: apiKeys.id });
  if (updated) return;
  await tx.insert(apiKeys).values({ userId, name: DEFAULT_API_KEY_NAME, scopes: [...API_KEY_SCOPES], keyHash, prefix: prefixOf(secret), isDefault: true });
}

/** GET /api/keys: the account's keys, oldest first, without their secrets. */
export async function listApiKeys(db: DbOrTx, secrets: SecretBox, userId: string): Promise<{ keys: ApiKeyView[] }> {
  const [rows, [user]] = await Promise.all([
    db.select().from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id)),
    db.select({ apiKeyEnc: users.apiKeyEnc }).from(users).where(eq(users.id, userId)),
  ]);
  return { keys: rows.map((r) => view(r, user?.apiKeyEnc ?? null, secrets)) };
}

/** POST /api/keys: a new key, its secret answered this once. At most MAX_API_KEYS per account. */
export async function createApiKey(
  tx: DbOrTx,
  secrets: SecretBox,
  userId: string,
  input: z.output<typeof createApiKeyInput>,
  within: RoleLimit | null = null,
): Promise<CreatedApiKey> {
  refuseBeyondRole(input.scopes, within);
  // Concurrent creations count one after another: the user's row is the lock.
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
  const [held] = await tx.select({ n: count() }).from(apiKeys).where(eq(apiKeys.userId, userId));
  if ((held?.n ?? 0) >= MAX_API_KEYS) throw new DomainError('CONFLICT', TOO_MANY_API_KEYS);
  const secret = newApiKey();
  const [row] = await tx
    .insert(apiKeys)
    .values({
      userId,
      name: input.name,
      scopes: input.scopes,
      keyHash: secrets.lookupHash(secret),
      prefix: prefixOf(secret),
      expiresAt: input.expiresAt,
      allowedCidrs: input.allowedCidrs,
    })
    .returning();
  return { key: view(row!, null, secrets), secret };
}

/** DELETE /api/keys/:id: refused from the next request on (other servers within the read cache's second). */
export async function deleteApiKey(tx: DbOrTx, userId: string, id: string, within: RoleLimit | null = null): Promise<{ deleted: true }> {
  const [row] = await tx
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId)));
  if (!row) throw new DomainError('NOT_FOUND', API_KEY_NOT_FOUND);
  if (row.isDefault) throw new DomainError('CONFLICT', DEFAULT_KEY_KEPT);
  refuseBeyondRole(row.scopes, within);
  await tx.delete(apiKeys).where(eq(apiKeys.id, id));
  return { deleted: true };
}

/** The key a request authenticated with: what it may do. */
export interface AuthenticatedKey {
  id: string;
  /** For the account's audit log. */
  name: string;
  scopes: readonly ApiKeyScope[];
  /** Today's single key: every scope and account administration. */
  isDefault: boolean;
}

export interface KeyLookup {
  key: AuthenticatedKey & { expiresAt: Date | null; allowedCidrs: readonly string[] };
  user: UserAccount;
}

/** The key with this hash and its account, or null. */
export async function findApiKey(db: DbOrTx, keyHash: string): Promise<KeyLookup | null> {
  const [found] = await db
    .select({ key: apiKeys, user: users })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(eq(apiKeys.keyHash, keyHash))
    .limit(1);
  if (!found) return null;
  const { key, user } = found;
  return {
    key: {
      id: key.id,
      name: key.name,
      scopes: key.scopes.filter((s): s is ApiKeyScope => (API_KEY_SCOPES as readonly string[]).includes(s)),
      isDefault: key.isDefault,
      expiresAt: key.expiresAt,
      allowedCidrs: key.allowedCidrs,
    },
    user,
  };
}

/** Why a found key is refused for this request (a 401), or null when it may be used. */
export function keyRefusal(key: KeyLookup['key'], clientAddress: string, now = Date.now()): string | null {
  if (key.expiresAt && key.expiresAt.getTime() <= now) return API_KEY_EXPIRED;
  if (key.allowedCidrs.length && !new AllowlistMatcher(key.allowedCidrs).admits(clientAddress)) return API_KEY_ADDRESS_REFUSED;
  return null;
}

// When this process last moved each key's lastUsedAt: it asks the database at most once a minute per key.
const touched = new WeakMap<DbOrTx, Map<string, number>>();

/** Records a key's use, at most once a minute per key: the UPDATE's WHERE decides across servers. */
export async function touchApiKey(db: DbOrTx, keyId: string, now = Date.now()): Promise<void> {
  let seen = touched.get(db);
  if (!seen) touched.set(db, (seen = new Map()));
  const last = seen.get(keyId);
  if (last !== undefined && now - last < API_KEY_LAST_USED_EVERY_MS) return;
  if (seen.size > 100_000) seen.clear();
  seen.set(keyId, now);
  await db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(
      and(
        eq(apiKeys.id, keyId),
        or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql`now() - make_interval(secs => ${API_KEY_LAST_USED_EVERY_MS / 1000})`)),
      ),
    );
}
