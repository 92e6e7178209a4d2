/**
 * Proxy credentials, checked for the gateway. Protects: the traffic we sell, against anyone without
 * the account's proxy password. The password is stored encrypted (it must be shown to its owner
 * again) and compared in constant time; the gateway caches results for a few seconds only, so a
 * changed password or a disabled user takes effect within seconds.
 */
import { and, eq } from 'drizzle-orm';
import { safeEqual, type SecretBox } from '@proxyhub/auth';
import type { GatewayAuthorizeAddressInput, GatewayAuthorizeInput, UsageType } from '@proxyhub/core';
import { proxyAccounts, type DbOrTx } from '@proxyhub/db';
import { accountCap } from './account-cap';
import { accountRemaining } from './batches';
import { allowlistNetworks, passwordlessUserAt } from './ip-allowlist';
import { isKnownLocation } from './locations';
import { selectAccountWallets, toAccountWallet, type AccountWalletRow } from './wallet';

export type GatewayAccountResult =
  /** `creditsBytes`: what the account can still spend (its wallet's remaining, or less under a batch cap). */
  /** `allowlist`: the owner's IP allow-list as `address/prefix` networks; empty means any source address. */
  | { ok: true; proxyAccountId: string; usageType: UsageType; creditsBytes: bigint; allowlist: string[] }
  | { ok: false; reason: 'bad_credentials' | 'disabled' | 'not_passwordless'; message: string };

export interface GatewayAuthorization {
  account: GatewayAccountResult;
  /** Whether the location exists; null when none was asked about. */
  locationKnown: boolean | null;
}

const BAD_CREDENTIALS = { ok: false, reason: 'bad_credentials', message: 'Invalid proxy username or password' } as const;

export async function authorizeProxyAccount(db: DbOrTx, secrets: SecretBox, input: GatewayAuthorizeInput): Promise<GatewayAuthorization> {
  const locationKnown = input.location ? isKnownLocation(input.location) : null;
  const [row] = await selectAccountWallets(db, { passwordEnc: proxyAccounts.proxyPasswordEnc })
    .where(eq(proxyAccounts.proxyUserId, input.proxyUserId))
    .limit(1);
  if (!row) return { account: BAD_CREDENTIALS, locationKnown };
  let password: string;
  try {
    password = secrets.decrypt(row.passwordEnc);
  } catch {
    return { account: BAD_CREDENTIALS, locationKnown };
  }
  if (!safeEqual(password, input.password)) return { account: BAD_CREDENTIALS, locationKnown };
  return { account: await accountAnswer(db, row), locationKnown };
}

/** What an account whose credentials (or source address) were good may do. */
async function accountAnswer(db: DbOrTx, row: AccountWalletRow): Promise<GatewayAccountResult> {
  const acc = toAccountWallet(row);
  if (acc.disabled) return { ok: false, reason: 'disabled', message: 'This proxy account is disabled' };
  let creditsBytes = await accountRemaining(db, acc);
  // Under its own cap an account can spend what its open leases hold plus the room left.
  const cap = await accountCap(db, acc.proxyAccountId, { lock: false });
  if (cap.room !== null && cap.held + cap.room < creditsBytes) creditsBytes = cap.held + cap.room;
  const owner = 'userId' in acc.wallet ? acc.wallet.userId : null;
  const allowlist = owner ? await allowlistNetworks(db, owner) : [];
  return { ok: true, proxyAccountId: acc.proxyAccountId, usageType: acc.usageType, creditsBytes, allowlist };
}

/**
 * A connection that brought no credentials: the main account of the user for whom its source
 * address is password-less, if there is one.
 */
export async function authorizeSourceAddress(db: DbOrTx, input: GatewayAuthorizeAddressInput): Promise<{ account: GatewayAccountResult }> {
  const userId = await passwordlessUserAt(db, input.address);
  const [row] = userId
    ? await selectAccountWallets(db, {})
        .where(and(eq(proxyAccounts.userId, userId), eq(proxyAccounts.kind, 'main')))
        .limit(1)
    : [];
  if (!row) return { account: { ok: false, reason: 'not_passwordless', message: `No credentials, and ${input.address} is not a password-less address` } };
  return { account: await accountAnswer(db, row) };
}
