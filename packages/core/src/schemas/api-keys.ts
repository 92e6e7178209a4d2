import { z } from 'zod';
import { parseAllowlistEntry } from './ip-allowlist';

/**
 * API keys with scopes: what a key may do is the scopes it was given. A signed-in session and the
 * account's "Default" key (today's single key) may do everything.
 */
export const API_KEY_SCOPES = ['usage:read', 'accounts:read', 'accounts:write', 'lines:generate', 'billing:write'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/**
 * Account administration (password, two-factor, Telegram link, API keys, name, deleting the account,
 * rotating the Default key): never granted to a new key, held only by sessions and the Default key.
 */
export const ACCOUNT_ADMIN_SCOPE = 'account:admin';
/** What a procedure may require of a key. */
export type RequiredScope = ApiKeyScope | typeof ACCOUNT_ADMIN_SCOPE;

/** What each scope covers, in the Settings form's words. */
export const API_KEY_SCOPE_LABELS: Record<ApiKeyScope, string> = {
  'usage:read': 'Read usage, connections, statements and billing history',
  'accounts:read': 'Read proxy accounts, the IP allow-list and alerts',
  'accounts:write': 'Change proxy accounts, the IP allow-list, alerts and webhooks; rotate passwords and lines',
  'lines:generate': 'Generate and test proxy lines',
  'billing:write': 'Order, redeem codes, gift codes',
};

export const MAX_API_KEYS = 20;
export const DEFAULT_API_KEY_NAME = 'Default';
/** The characters of a key the list shows (its secret never again). */
export const API_KEY_PREFIX_CHARS = 8;
/** `lastUsedAt` moves at most this often per key: a busy key does not write on every call. */
export const API_KEY_LAST_USED_EVERY_MS = 60_000;
/** Most networks a key may be limited to. */
export const MAX_API_KEY_CIDRS = 50;

export const missingScopeMessage = (scope: RequiredScope) => `Missing scope: ${scope}`;
export const TOO_MANY_API_KEYS = `At most ${MAX_API_KEYS} API keys per account: delete one first`;
export const API_KEY_EXPIRED = 'API key expired';
export const API_KEY_ADDRESS_REFUSED = 'API key not allowed from this address';
export const API_KEY_NOT_FOUND = 'API key not found';
export const DEFAULT_KEY_KEPT = 'The Default key cannot be deleted: rotate it instead';

const isScope = (s: string): s is ApiKeyScope => (API_KEY_SCOPES as readonly string[]).includes(s);

/** POST /api/keys: the name, at least one known scope, an optional expiry in the future and networks (IPv4/IPv6, CIDR). */
export const createApiKeyInput = z.object({
  name: z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(100, 'Name must be at most 100 characters'),
  scopes: z
    .array(z.string({ error: 'Scopes must be a list of scope names' }), { error: 'Scopes must be a list of scope names' })
    .min(1, 'Choose at least one scope')
    .max(API_KEY_SCOPES.length * 2, 'Scopes: too many entries')
    .transform((list, ctx) => {
      const unknown = list.find((s) => !isScope(s));
      if (unknown !== undefined) {
        ctx.addIssue({ code: 'custom', message: `Unknown scope: ${unknown.slice(0, 40)} (scopes are ${API_KEY_SCOPES.join(', ')})` });
        return z.NEVER;
      }
      return API_KEY_SCOPES.filter((s) => list.includes(s));
    }),
  /** ISO 8601 (`2027-01-31` or with a time); null or absent: never expires. */
  expiresAt: z
    .union([z.date(), z.string()], { error: 'Expiry must be a date' })
    .nullish()
    .transform((v, ctx) => {
      if (v === null || v === undefined || v === '') return null;
      const at = v instanceof Date ? v : new Date(v);
      if (Number.isNaN(at.getTime())) {
        ctx.addIssue({ code: 'custom', message: 'Expiry must be a date (2027-01-31 or an ISO 8601 time)' });
        return z.NEVER;
      }
      if (at.getTime() <= Date.now()) {
        ctx.addIssue({ code: 'custom', message: 'Expiry must be in the future' });
        return z.NEVER;
      }
      return at;
    }),
  /** Addresses the key may be used from; empty or absent: any. Stored as `address/prefix`. */
  allowedCidrs: z
    .array(z.string({ error: 'Allowed networks must be a list of addresses or CIDR ranges' }), {
      error: 'Allowed networks must be a list of addresses or CIDR ranges',
    })
    .max(MAX_API_KEY_CIDRS, `At most ${MAX_API_KEY_CIDRS} allowed networks`)
    .optional()
    .transform((list, ctx) => {
      const cidrs: string[] = [];
      for (const entry of list ?? []) {
        const network = parseAllowlistEntry(entry);
        if (!network) {
          ctx.addIssue({ code: 'custom', message: `Invalid CIDR: "${entry.trim().slice(0, 64)}"` });
          return z.NEVER;
        }
        if (!cidrs.includes(network.cidr)) cidrs.push(network.cidr);
      }
      return cidrs;
    }),
});
export type CreateApiKeyInput = z.input<typeof createApiKeyInput>;

/** DELETE /api/keys/:id */
export const deleteApiKeyInput = z.object({ id: z.uuid({ error: API_KEY_NOT_FOUND }) });

/** A key as listed: never its secret, only its first characters. */
export interface ApiKeyView {
  id: string;
  name: string;
  scopes: ApiKeyScope[];
  expiresAt: string | null;
  allowedCidrs: string[];
  createdAt: string;
  lastUsedAt: string | null;
  prefix: string;
  /** Today's single key: every scope and account administration; rotated, never deleted. */
  isDefault: boolean;
}

/** POST /api/keys answers the secret this once. */
export interface CreatedApiKey {
  key: ApiKeyView;
  secret: string;
}
