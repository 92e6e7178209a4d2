/**
 * Two-factor sign-in procedures for users and admins. A sign-in whose password was right but whose
 * second factor is still owed carries a pending-login cookie (HttpOnly, SameSite=Lax, 5 minutes);
 * no session exists until the code is accepted.
 */
import type { TRPCRouterRecord } from '@trpc/server';
import {
  DomainError,
  twoFactorDisableInput,
  twoFactorEnableInput,
  twoFactorLoginInput,
  twoFactorStatusOutput,
  twoFactorSetupOutput,
  twoFactorEnableOutput,
  twoFactorDisableOutput,
  twoFactorLoginOutput,
  twoFactorAdminSetupOutput,
  twoFactorAdminEnableOutput,
  twoFactorAdminDisableOutput,
  twoFactorAdminLoginOutput,
} from '@proxyhub/core';
import { servedOverHttps } from '../config';
import { startSession, type Context } from '../context';
import { clientKey, limited } from '../limits';
import { getUserView } from '../services/accounts/users';
import {
  claimPendingAttempt,
  disableTwoFactor,
  enableTwoFactor,
  finishPendingLogin,
  INVALID_CODE,
  pendingLogin,
  PENDING_LOGIN_MS,
  setupTwoFactor,
  startPendingLogin,
  twoFactorEnabled,
  type AccountKind,
  type TwoFactorAccount,
  warnOfCodeGuessing,
} from '../services/accounts/two-factor';
import { adminProcedure, middleware, publicProcedure, userProcedure } from '../trpc';

export const PENDING_COOKIE: Record<AccountKind, string> = { user: 'pending_2fa', admin: 'admin_pending_2fa' };

function pendingCookie(ctx: Context, kind: AccountKind, token: string | null) {
  ctx.res.setCookie({
    name: PENDING_COOKIE[kind],
    value: token ?? '',
    attributes: { httpOnly: true, sameSite: 'lax', secure: servedOverHttps(ctx.deps.config), path: '/', maxAge: token ? PENDING_LOGIN_MS / 1000 : 0 },
  });
}

/** Sets the pending-login cookie for an account whose password was right. */
export async function owePendingSecondFactor(ctx: Context, account: TwoFactorAccount): Promise<void> {
  pendingCookie(ctx, account.kind, await startPendingLogin(ctx.db, account));
}

/** Wrong codes count per address (failures only), on top of the five per pending sign-in. */
const codeLimited = limited((ctx: Context) => [['twoFactor', clientKey(ctx)]], { failuresOnly: true });

const isWrongCode = (error: { cause?: unknown }) => error.cause instanceof DomainError && error.cause.message === INVALID_CODE;

/**
 * Wrong codes also count per account, across addresses and pending sign-ins (each of which costs
 * only a correct password): counted before the code is checked, so parallel guesses cannot pass
 * it; only a wrong code keeps its point. The guess that uses up the allowance warns the owner, once.
 */
const accountCodeLimited = (kind: AccountKind) =>
  middleware(async ({ ctx, next }) => {
    const account = await pendingLogin(ctx.db, ctx.req.cookie(PENDING_COOKIE[kind]), kind);
    const limiter = ctx.deps.rateLimiter;
    const key = `${kind}:${account.id}`;
    await limiter.consume('twoFactorAccount', key).catch(async (e: unknown) => {
      // A refused guess was never evaluated: it must not keep a point (the limiter counts it anyway).
      await limiter.refund('twoFactorAccount', key);
      throw e;
    });
    const result = await next();
    if (result.ok || !isWrongCode(result.error)) {
      await limiter.refund('twoFactorAccount', key);
    } else if ((await limiter.peek('twoFactorAccount', key)).consumed >= ctx.deps.config.rateLimits.twoFactorAccount.points) {
      // One mail per window, however many guesses hit the ceiling at once.
      const first = await limiter.consume('twoFactorAlert', key).then(
        () => true,
        () => false,
      );
      if (first) warnOfCodeGuessing(ctx.deps, account);
    }
    return result;
  });

/**
 * The admin a setup or enable is for: the signed-in admin, or (with ADMIN_REQUIRE_2FA) the admin of
 * a pending sign-in that must set it up before it gets a session.
 */
async function adminForSetup(ctx: Context): Promise<{ account: TwoFactorAccount; label: string; pending: boolean }> {
  if (ctx.admin) return { account: { kind: 'admin', id: ctx.admin.id }, label: ctx.admin.username, pending: false };
  if (!ctx.deps.config.adminRequire2fa) throw new DomainError('UNAUTHORIZED', 'Admin login required');
  const p = await pendingLogin(ctx.db, ctx.req.cookie(PENDING_COOKIE.admin), 'admin');
  return { account: { kind: 'admin', id: p.id }, label: 'admin', pending: true };
}

export const twoFactorRouter = {
  status: userProcedure
    .output(twoFactorStatusOutput)
    .query(async ({ ctx }) => ({ enabled: await twoFactorEnabled(ctx.db, { kind: 'user', id: ctx.user.id }) })),
  setup: userProcedure
    .output(twoFactorSetupOutput)
    .mutation(({ ctx }) => setupTwoFactor(ctx.db, ctx.deps.secrets, { kind: 'user', id: ctx.user.id }, ctx.user.email)),
  enable: userProcedure
    .input(twoFactorEnableInput)
    .use(codeLimited)
    .output(twoFactorEnableOutput)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => enableTwoFactor(tx, ctx.deps.secrets, { kind: 'user', id: ctx.user.id }, input.code))),
  disable: userProcedure
    .input(twoFactorDisableInput)
    .use(codeLimited)
    .output(twoFactorDisableOutput)
    .mutation(async ({ ctx, input }) => {
      await ctx.db.transaction((tx) => disableTwoFactor(tx, ctx.deps.secrets, { kind: 'user', id: ctx.user.id }, input));
      return { success: true as const };
    }),
  /** Finishes a user's sign-in with a TOTP or recovery code: the session starts here. */
  login: publicProcedure
    .input(twoFactorLoginInput)
    .use(codeLimited)
    .use(accountCodeLimited('user'))
    .output(twoFactorLoginOutput)
    .mutation(async ({ ctx, input }) => {
      const pending = await claimPendingAttempt(ctx.db, ctx.req.cookie(PENDING_COOKIE.user), 'user');
      const r = await ctx.db.transaction((tx) => finishPendingLogin(tx, ctx.deps.secrets, pending, input.code));
      if (!r.ok) throw new DomainError('UNAUTHORIZED', INVALID_CODE);
      pendingCookie(ctx, 'user', null);
      await startSession(ctx, 'user', r.account.id);
      return { success: true as const, user: await getUserView(ctx.db, ctx.deps.secrets, r.account.id) };
    }),

  adminSetup: publicProcedure.output(twoFactorAdminSetupOutput).mutation(async ({ ctx }) => {
    const { account, label } = await adminForSetup(ctx);
    return setupTwoFactor(ctx.db, ctx.deps.secrets, account, label);
  }),
  adminEnable: publicProcedure
    .input(twoFactorEnableInput)
    .use(codeLimited)
    .output(twoFactorAdminEnableOutput)
    .mutation(async ({ ctx, input }) => {
      const { account, pending } = await adminForSetup(ctx);
      const r = await ctx.db.transaction((tx) => enableTwoFactor(tx, ctx.deps.secrets, account, input.code));
      if (pending) {
        // Required setup done: the sign-in it interrupted completes.
        pendingCookie(ctx, 'admin', null);
        await startSession(ctx, 'admin', account.id);
      }
      return r;
    }),
  adminDisable: adminProcedure
    .input(twoFactorDisableInput)
    .use(codeLimited)
    .output(twoFactorAdminDisableOutput)
    .mutation(async ({ ctx, input }) => {
      if (ctx.deps.config.adminRequire2fa) throw new DomainError('FORBIDDEN', 'Two-factor sign-in is required for admins here');
      await ctx.db.transaction((tx) => disableTwoFactor(tx, ctx.deps.secrets, { kind: 'admin', id: ctx.admin.id }, input));
      return { success: true as const };
    }),
  adminLogin: publicProcedure
    .input(twoFactorLoginInput)
    .use(codeLimited)
    .use(accountCodeLimited('admin'))
    .output(twoFactorAdminLoginOutput)
    .mutation(async ({ ctx, input }) => {
      const pending = await claimPendingAttempt(ctx.db, ctx.req.cookie(PENDING_COOKIE.admin), 'admin');
      const r = await ctx.db.transaction((tx) => finishPendingLogin(tx, ctx.deps.secrets, pending, input.code));
      if (!r.ok) throw new DomainError('UNAUTHORIZED', INVALID_CODE);
      pendingCookie(ctx, 'admin', null);
      await startSession(ctx, 'admin', r.account.id);
      return { success: true as const };
    }),
} satisfies TRPCRouterRecord;
