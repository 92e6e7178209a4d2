/**
 * Proxy credentials, checked for the gateway. Protects: the traffic we sell, against anyone without
 * the account's proxy password. The password is stored encrypted (it must be shown to its owner
 * again) and compared in constant time; the gateway caches results for a few seconds only, so a
 * changed password or a disabled user takes effect within seconds.
 */
import { and, eq } from 'drizzle-orm';
import { safeEqual, type SecretBox } from '@proxyhub/auth';
import {
  parseLocationText,
  positionsBy,
  type GatewayAuthorizeAddressInput,
  type GatewayAuthorizeInput,
  type LineRotation,
  type ProxyLocation,
  type TargetRules,
  type UsageType,
} from '@proxyhub/core';
import { proxyAccounts, type DbOrTx } from '@proxyhub/db';
import { anyOf } from '../lib/any-of';
import { standing } from '../money/caps';
import { offeredCountries } from '../network/catalogue';
import { allowlistsOf, passwordlessUserAt } from '../accounts/ip-allowlist';
import { reserveLeases, type LeaseGrant } from './leases';
import { isKnownLocation } from '../network/locations';
import { recentRotations } from '../network/line-rotations';
import { targetRulesOf } from '../accounts/target-rules';
import { selectAccountWallets, toAccountWallet, type AccountWalletRow } from '../money/wallet';

export type GatewayAccountResult =
  /**
   * `allowlist`: the owner's IP allow-list as `address/prefix` networks; empty means any source
   * address. What the account may spend is a lease's answer (an empty wallet or a reached cap is
   * refused there, in each protocol's words), not the login's.
   */
  | {
      ok: true;
      proxyAccountId: string;
      usageType: UsageType;
      allowlist: string[];
      maxConnections: number | null;
      targetPolicyExempt: boolean;
      /** The account's own target rules; absent when it has none that refuse anything (target-rules.ts). */
      targetRules?: TargetRules;
      /** A password-less connection to an entry port: the line its profile makes (authorizeSourceAddress). */
      portProfile?: PortLine;
      /** The account's lines rotated recently ("A new IP now", line-rotations.ts): the gateway derives their sessions from them. */
      rotations: LineRotation[];
    }
  | { ok: false; reason: 'bad_credentials' | 'disabled' | 'expired' | 'not_passwordless'; message: string };

/** What an entry port's profile makes of a password-less connection: a line as a username would name it. */
export interface PortLine {
  /** The proxy account's, so the line's sticky session is its own. */
  proxyUserId: string;
  location: ProxyLocation;
  durationMinutes: number;
  /** Whether the location exists and its country is offered now. */
  locationKnown: boolean;
}

export interface GatewayAuthorization {
  account: GatewayAccountResult;
  /** Whether the location exists and its country is offered; null when none was asked about. */
  locationKnown: boolean | null;
  /**
   * The first lease, when one was asked for (absent otherwise): null when the login is refused
   * (credentials, account, location), else the grant as reserveLease answers it.
   */
  lease?: LeaseGrant | null;
}

const BAD_CREDENTIALS = { ok: false, reason: 'bad_credentials', message: 'Invalid proxy username or password' } as const;
const DISABLED = { ok: false, reason: 'disabled', message: 'This proxy account is disabled' } as const;
export const EXPIRED_MESSAGE = 'Proxy account expired';
const EXPIRED = { ok: false, reason: 'expired', message: EXPIRED_MESSAGE } as const;

/** Whether the gateways have a default upstream (then every catalogue country is offered; catalogue.ts). */
export interface EgressConfig {
  defaultUpstream?: boolean | undefined;
}

export async function authorizeProxyAccount(
  db: DbOrTx,
  secrets: SecretBox,
  input: GatewayAuthorizeInput,
  egress: EgressConfig = {},
): Promise<GatewayAuthorization> {
  const [answer] = await authorizeProxyAccounts(db, secrets, [input], egress);
  return answer!;
}

/**
 * Checks many credentials in a few queries whatever their number (a gateway's cold start sends a
 * thousand at once); answers in the order asked.
 */
export async function authorizeProxyAccounts(
  db: DbOrTx,
  secrets: SecretBox,
  inputs: readonly GatewayAuthorizeInput[],
  egress: EgressConfig = {},
): Promise<GatewayAuthorization[]> {
  const rows = await selectAccountWallets(db, { proxyUserId: proxyAccounts.proxyUserId, passwordEnc: proxyAccounts.proxyPasswordEnc }).where(
    anyOf(
      proxyAccounts.proxyUserId,
      inputs.map((i) => i.proxyUserId),
    ),
  );
  const byUserId = new Map(rows.map((r) => [r.proxyUserId, r]));
  const good = inputs.map((input) => {
    const row = byUserId.get(input.proxyUserId);
    return row && passwordMatches(secrets, row.passwordEnc, input.password) ? row : null;
  });
  const answers = await accountAnswers(
    db,
    good.filter((r) => r !== null),
  );
  // A location is known when the dataset has it and its country is offered now (catalogue.ts).
  const offered = inputs.some((i) => i.location) ? await offeredCountries(db, egress) : new Set<string>();
  const out = inputs.map((input, i): GatewayAuthorization => ({
    account: good[i] ? answers.get(good[i].proxyAccountId)! : BAD_CREDENTIALS,
    locationKnown: input.location ? offered.has(input.location.country) && isKnownLocation(input.location) : null,
  }));
  await firstLeases(db, inputs, out);
  return out;
}

/**
 * The first leases asked for with logins, for the logins the gateway will let through (the remaining
 * bytes do not change: credits move into a lease). One transaction per gateway, as reserveLeases.
 */
async function firstLeases(db: DbOrTx, inputs: readonly GatewayAuthorizeInput[], out: GatewayAuthorization[]): Promise<void> {
  inputs.forEach((input, i) => {
    if (input.lease) out[i]!.lease = null;
  });
  const byGateway = positionsBy(inputs, (input, i) => {
    const a = out[i]!;
    return a.account.ok && a.locationKnown !== false ? input.lease?.gatewayId : undefined;
  });
  for (const [gatewayId, at] of byGateway) {
    const items = at.map((i) => {
      const account = out[i]!.account as Extract<GatewayAccountResult, { ok: true }>; // only good logins have a key
      return { proxyAccountId: account.proxyAccountId, bytes: inputs[i]!.lease!.bytes };
    });
    const grants = await db.transaction((tx) => reserveLeases(tx, { gatewayId, items }));
    at.forEach((i, k) => (out[i]!.lease = grants[k]!));
  }
}

function passwordMatches(secrets: SecretBox, sealed: string, given: string): boolean {
  let password: string;
  try {
    password = secrets.decrypt(sealed);
  } catch {
    return false;
  }
  return safeEqual(password, given);
}

/** What accounts whose credentials (or source address) were good may do, by proxy account id: the spending rule's standing. */
async function accountAnswers(db: DbOrTx, rows: readonly AccountWalletRow[]): Promise<Map<string, GatewayAccountResult>> {
  const all = rows.map(toAccountWallet);
  const accs = all.filter((a) => !standing(a));
  const [allowlists, rotations, targetRules] = await Promise.all([
    allowlistsOf(
      db,
      accs.flatMap((a) => ('userId' in a.wallet ? [a.wallet.userId] : [])),
    ),
    recentRotations(
      db,
      accs.map((a) => a.proxyAccountId),
    ),
    targetRulesOf(
      db,
      accs.map((a) => a.proxyAccountId),
    ),
  ]);
  const out = new Map<string, GatewayAccountResult>();
  // Suspended or disabled: the gateway has one answer for both (the account may not be used); expired its own.
  for (const a of all) out.set(a.proxyAccountId, standing(a)?.reason === 'expired' ? EXPIRED : DISABLED);
  for (const acc of accs) {
    const allowlist = 'userId' in acc.wallet ? (allowlists.get(acc.wallet.userId) ?? []) : [];
    const rules = targetRules.get(acc.proxyAccountId);
    out.set(acc.proxyAccountId, {
      ok: true,
      proxyAccountId: acc.proxyAccountId,
      usageType: acc.usageType,
      allowlist,
      maxConnections: acc.maxConnections,
      targetPolicyExempt: acc.targetPolicyExempt,
      rotations: rotations.get(acc.proxyAccountId) ?? [],
      ...(rules && { targetRules: rules }),
    });
  }
  return out;
}

/**
 * A connection that brought no credentials: the main account of the user for whom its source
 * address is password-less, if there is one. To an entry port (`port`), the account, location and
 * session that port's profile names instead; an entry port without a profile is refused.
 */
export async function authorizeSourceAddress(
  db: DbOrTx,
  input: GatewayAuthorizeAddressInput,
  egress: EgressConfig = {},
): Promise<{ account: GatewayAccountResult }> {
  const refused = (why: string) => ({ account: { ok: false, reason: 'not_passwordless', message: `No credentials, and ${input.address} ${why}` } as const });
  const owner = await passwordlessUserAt(db, input.address, input.port);
  if (!owner) return refused('is not a password-less address');
  const { userId, profile } = owner;
  if (input.port !== undefined && !profile) return refused(`has no profile for port ${input.port}`);
  const which = profile?.proxyAccountId ? eq(proxyAccounts.proxyUserId, profile.proxyAccountId) : eq(proxyAccounts.kind, 'main');
  const [row] = await selectAccountWallets(db, { proxyUserId: proxyAccounts.proxyUserId })
    .where(and(eq(proxyAccounts.userId, userId), which))
    .limit(1);
  if (!row) return profile ? { account: DISABLED } : refused('is not a password-less address');
  const account = (await accountAnswers(db, [row])).get(row.proxyAccountId)!;
  if (!profile || !account.ok) return { account };
  const location = parseLocationText(profile.location) ?? { country: '' };
  const locationKnown = (await offeredCountries(db, egress)).has(location.country) && isKnownLocation(location);
  return { account: { ...account, portProfile: { proxyUserId: row.proxyUserId, location, durationMinutes: profile.durationMinutes, locationKnown } } };
}
