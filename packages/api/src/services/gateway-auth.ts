/**
 * Proxy credentials, checked for the gateway. Protects: the traffic we sell, against anyone without
 * the account's proxy password. The password is stored encrypted (it must be shown to its owner
 * again) and compared in constant time; the gateway caches results for a few seconds only, so a
 * changed password or a disabled user takes effect within seconds.
 */
import { eq } from 'drizzle-orm';
import { safeEqual, type SecretBox } from '@proxyhub/auth';
import type { GatewayAuthorizeInput, UsageType } from '@proxyhub/core';
import { proxyAccounts, type DbOrTx } from '@proxyhub/db';
import { accountCap } from './account-cap';
import { accountRemaining } from './batches';
import { isKnownLocation } from './locations';
import { selectAccountWallets, toAccountWallet } from './wallet';

export type GatewayAccountResult =
  /** `creditsBytes`: what the account can still spend (its wallet's remaining, or less under a batch cap). */
  { ok: true; proxyAccountId: string; usageType: UsageType; creditsBytes: bigint } | { ok: false; reason: 'bad_credentials' | 'disabled'; message: string };

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
  const acc = toAccountWallet(row);
  if (acc.disabled) return { account: { ok: false, reason: 'disabled', message: 'This proxy account is disabled' }, locationKnown };
  let creditsBytes = await accountRemaining(db, acc);
  // Under its own cap an account can spend what its open leases hold plus the room left.
  const cap = await accountCap(db, acc.proxyAccountId, { lock: false });
  if (cap.room !== null && cap.held + cap.room < creditsBytes) creditsBytes = cap.held + cap.room;
  return { account: { ok: true, proxyAccountId: acc.proxyAccountId, usageType: acc.usageType, creditsBytes }, locationKnown };
}
