/**
 * Two-factor sign-in (TOTP, RFC 6238: 30 s steps, 6 digits) for users and admins. The secret is
 * stored encrypted and is in force once a first code confirms it; 10 single-use recovery codes are
 * shown once and stored hashed. A TOTP code is accepted once: the step it was accepted for is kept
 * and a conditional UPDATE refuses that step or an older one, so a replayed code (even two uses at
 * the same moment) fails. A sign-in with the password right but no second factor yet is a pending
 * login: a random token in a short-lived cookie, stored hashed; each code is counted against it
 * (a conditional increment) before it is checked, so at most five are ever evaluated, even at once.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { verifyPassword, type SecretBox } from '@proxyhub/auth';
import { DomainError } from '@proxyhub/core';
import { adminUsers, pendingLogins, recoveryCodes, users, type DbOrTx } from '@proxyhub/db';
import { inBackground, type ApiDeps } from '../../deps';
import { mailTemplates } from '../../mail';

export type AccountKind = 'user' | 'admin';
export interface TwoFactorAccount {
  kind: AccountKind;
  id: string;
}

const ISSUER = 'ProxyHub';
const PERIOD = 30;
export const PENDING_LOGIN_MS = 5 * 60_000;
const PENDING_ATTEMPTS = 5;
const RECOVERY_CODES = 10;

export const TWO_FACTOR_ON = 'Two-factor sign-in is already on';
export const TWO_FACTOR_OFF = 'Two-factor sign-in is not on';
export const SET_UP_FIRST = 'Set up two-factor sign-in first';
export const INVALID_CODE = 'Invalid code';
export const PENDING_EXPIRED = 'Your sign-in expired: sign in again';
export const PENDING_VOID = 'Too many wrong codes: sign in again';
export const WRONG_PASSWORD = 'Wrong password';

const table = (kind: AccountKind) => (kind === 'user' ? users : adminUsers);
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const owner = (a: TwoFactorAccount) => (a.kind === 'user' ? eq(recoveryCodes.userId, a.id) : eq(recoveryCodes.adminId, a.id));

async function accountRow(db: DbOrTx, a: TwoFactorAccount) {
  const t = table(a.kind);
  const [row] = await db.select({ secret: t.totpSecretEnc, enabledAt: t.totpEnabledAt, passwordHash: t.passwordHash }).from(t).where(eq(t.id, a.id));
  if (!row) throw new DomainError('NOT_FOUND', 'Account not found');
  return row;
}

const totpFor = (secret: string, label: string) =>
  new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secret) });

/** A new secret (replacing one not yet confirmed); it takes effect when enable() confirms a code. */
export async function setupTwoFactor(db: DbOrTx, secrets: SecretBox, a: TwoFactorAccount, label: string) {
  const row = await accountRow(db, a);
  if (row.enabledAt) throw new DomainError('CONFLICT', TWO_FACTOR_ON);
  const secret = new Secret({ size: 20 }).base32;
  const t = table(a.kind);
  await db
    .update(t)
    .set({ totpSecretEnc: secrets.encrypt(secret), totpLastStep: null })
    .where(eq(t.id, a.id));
  const otpauthUrl = totpFor(secret, label).toString();
  return { secret, otpauthUrl, qrCodeDataUrl: await QRCode.toDataURL(otpauthUrl, { margin: 1, width: 240 }) };
}

/**
 * Accepts a TOTP code at most once: the step it belongs to must be newer than the last accepted one
 * (a conditional UPDATE, safe under concurrent tries). Returns false for a wrong or replayed code.
 */
async function acceptTotp(tx: DbOrTx, secrets: SecretBox, a: TwoFactorAccount, secretEnc: string, code: string): Promise<boolean> {
  if (!/^\d{6}$/.test(code)) return false;
  const secret = secrets.decrypt(secretEnc);
  const delta = totpFor(secret, '').validate({ token: code, window: 1 });
  if (delta === null) return false;
  const step = Math.floor(Date.now() / 1000 / PERIOD) + delta;
  const t = table(a.kind);
  const [row] = await tx
    .update(t)
    .set({ totpLastStep: step })
    .where(and(eq(t.id, a.id), or(isNull(t.totpLastStep), lt(t.totpLastStep, step))))
    .returning({ id: t.id });
  return row !== undefined;
}

async function acceptRecoveryCode(tx: DbOrTx, a: TwoFactorAccount, code: string): Promise<boolean> {
  const [row] = await tx
    .update(recoveryCodes)
    .set({ usedAt: sql`now()` })
    .where(and(owner(a), eq(recoveryCodes.codeHash, sha256(code.toUpperCase())), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  return row !== undefined;
}

/** A TOTP code or (when enabled) a recovery code, each accepted once. */
export async function verifySecondFactor(tx: DbOrTx, secrets: SecretBox, a: TwoFactorAccount, code: string): Promise<boolean> {
  const row = await accountRow(tx, a);
  if (!row.secret || !row.enabledAt) return false;
  if (await acceptTotp(tx, secrets, a, row.secret, code)) return true;
  return !/^\d{6}$/.test(code) && acceptRecoveryCode(tx, a, code);
}

function newRecoveryCode(): string {
  // 10 characters of an unambiguous alphabet (~50 bits), shown as XXXXX-XXXXX.
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = randomBytes(10);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}

/** Confirms the pending secret with a code and turns two-factor sign-in on; returns the recovery codes, once. */
export async function enableTwoFactor(tx: DbOrTx, secrets: SecretBox, a: TwoFactorAccount, code: string) {
  const row = await accountRow(tx, a);
  if (row.enabledAt) throw new DomainError('CONFLICT', TWO_FACTOR_ON);
  if (!row.secret) throw new DomainError('BAD_REQUEST', SET_UP_FIRST);
  if (!(await acceptTotp(tx, secrets, a, row.secret, code))) throw new DomainError('BAD_REQUEST', INVALID_CODE);
  const t = table(a.kind);
  await tx.update(t).set({ totpEnabledAt: new Date() }).where(eq(t.id, a.id));
  await tx.delete(recoveryCodes).where(owner(a));
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  await tx.insert(recoveryCodes).values(codes.map((c) => ({ ...(a.kind === 'user' ? { userId: a.id } : { adminId: a.id }), codeHash: sha256(c) })));
  return { recoveryCodes: codes.map((c) => `${c.slice(0, 5)}-${c.slice(5)}`) };
}

/** Turns it off: the account's password and a current code (or a recovery code) are both needed. */
export async function disableTwoFactor(tx: DbOrTx, secrets: SecretBox, a: TwoFactorAccount, input: { password: string; code: string }) {
  const row = await accountRow(tx, a);
  if (!row.enabledAt) throw new DomainError('CONFLICT', TWO_FACTOR_OFF);
  if (!(await verifyPassword(row.passwordHash, input.password))) throw new DomainError('BAD_REQUEST', WRONG_PASSWORD);
  if (!(await verifySecondFactor(tx, secrets, a, input.code))) throw new DomainError('BAD_REQUEST', INVALID_CODE);
  const t = table(a.kind);
  await tx.update(t).set({ totpSecretEnc: null, totpEnabledAt: null, totpLastStep: null }).where(eq(t.id, a.id));
  await tx.delete(recoveryCodes).where(owner(a));
}

export async function twoFactorEnabled(db: DbOrTx, a: TwoFactorAccount): Promise<boolean> {
  return (await accountRow(db, a)).enabledAt !== null;
}

/** The password was right; the second factor is still to come. Returns the cookie's token. */
export async function startPendingLogin(db: DbOrTx, a: TwoFactorAccount): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.insert(pendingLogins).values({
    id: sha256(token),
    ...(a.kind === 'user' ? { userId: a.id } : { adminId: a.id }),
    expiresAt: new Date(Date.now() + PENDING_LOGIN_MS),
  });
  return token;
}

/** The pending login a token names (not expired, not void), or an error that says to sign in again. */
export async function pendingLogin(db: DbOrTx, token: string | undefined, kind: AccountKind): Promise<TwoFactorAccount & { key: string }> {
  if (!token) throw new DomainError('UNAUTHORIZED', PENDING_EXPIRED);
  const key = sha256(token);
  const [row] = await db
    .select()
    .from(pendingLogins)
    .where(and(eq(pendingLogins.id, key), gt(pendingLogins.expiresAt, new Date())));
  const id = kind === 'user' ? row?.userId : row?.adminId;
  if (!row || !id) throw new DomainError('UNAUTHORIZED', PENDING_EXPIRED);
  if (row.attempts >= PENDING_ATTEMPTS) throw new DomainError('TOO_MANY_REQUESTS', PENDING_VOID);
  return { kind, id, key };
}

/**
 * Counts one code against a pending login before it is checked: a conditional increment that only
 * succeeds below five, so however many codes arrive at once, at most five are ever evaluated. The
 * count is committed on its own (not in the verifying transaction) and stands whatever follows.
 */
export async function claimPendingAttempt(db: DbOrTx, token: string | undefined, kind: AccountKind): Promise<TwoFactorAccount & { key: string }> {
  if (!token) throw new DomainError('UNAUTHORIZED', PENDING_EXPIRED);
  const key = sha256(token);
  const [row] = await db
    .update(pendingLogins)
    .set({ attempts: sql`${pendingLogins.attempts} + 1` })
    .where(and(eq(pendingLogins.id, key), gt(pendingLogins.expiresAt, new Date()), lt(pendingLogins.attempts, PENDING_ATTEMPTS)))
    .returning({ userId: pendingLogins.userId, adminId: pendingLogins.adminId });
  const id = kind === 'user' ? row?.userId : row?.adminId;
  if (!row) {
    await pendingLogin(db, token, kind); // says which: expired, or void
    throw new DomainError('TOO_MANY_REQUESTS', PENDING_VOID);
  }
  if (!id) throw new DomainError('UNAUTHORIZED', PENDING_EXPIRED);
  return { kind, id, key };
}

/**
 * Finishes a pending login (its attempt already claimed) with a code: the account to start a
 * session for, once (the pending row goes), or `ok: false` for a wrong code.
 */
export async function finishPendingLogin(
  tx: DbOrTx,
  secrets: SecretBox,
  pending: TwoFactorAccount & { key: string },
  code: string,
): Promise<{ ok: true; account: TwoFactorAccount } | { ok: false }> {
  if (!(await verifySecondFactor(tx, secrets, pending, code))) return { ok: false };
  const [gone] = await tx.delete(pendingLogins).where(eq(pendingLogins.id, pending.key)).returning({ id: pendingLogins.id });
  if (!gone) throw new DomainError('UNAUTHORIZED', PENDING_EXPIRED);
  return { ok: true, account: { kind: pending.kind, id: pending.id } };
}

/**
 * Someone has the password and is guessing codes: the owner hears of it (after the answer). Admin
 * accounts have no address, so theirs is logged.
 */
export function warnOfCodeGuessing(deps: ApiDeps, a: TwoFactorAccount): void {
  inBackground(deps, 'code guessing mail', async () => {
    if (a.kind === 'admin') {
      deps.logger.warn({ adminId: a.id }, 'second-factor codes are being guessed for an admin whose password was entered');
      return;
    }
    const [user] = await deps.db.select({ email: users.email, locale: users.locale, disabledAt: users.disabledAt }).from(users).where(eq(users.id, a.id));
    if (!user || user.disabledAt) return;
    await deps.mailer.send(mailTemplates.codeGuessing(user, new URL('/forgot-password', deps.config.publicUrl).toString()));
  });
}
