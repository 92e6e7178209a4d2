import { initTRPC, TRPCError } from '@trpc/server';
import superjson from 'superjson';
import { ZodError } from 'zod';
import {
  ACCOUNT_ADMIN_SCOPE,
  ACCOUNT_DISABLED_MESSAGE,
  DomainError,
  NOT_ALLOWED_FOR_ROLE,
  humanizeIdentifier,
  missingScopeMessage,
  roleAllows,
  roleRefusal,
  type AdminRole,
  type TeamRight,
  type DomainErrorCode,
  type RequiredScope,
} from '@proxyhub/core';
import { describeError, genericErrorCode } from '@proxyhub/core/i18n';
import type { Context } from './context';
import { AUDITED_PROCEDURES, auditTarget, auditTargetBefore, recordAccountAudit, type AuditActor } from './services/accounts/account-audit';
import { recordAudit, type Actor } from './services/admin/audit-log';

/** The one place domain error codes become tRPC codes (and, through tRPC, HTTP statuses). */
const TRPC_CODE: Record<DomainErrorCode, TRPCError['code']> = {
  BAD_REQUEST: 'BAD_REQUEST',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  TOO_MANY_REQUESTS: 'TOO_MANY_REQUESTS',
  PAYMENT_REQUIRED: 'PAYMENT_REQUIRED',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
};

/** First zod message, word for word (the spec's messages live in the schemas). */
export function firstZodMessage(err: ZodError): string {
  const issue = err.issues[0];
  if (!issue) return 'Invalid input';
  const name = issue.path.filter((p) => typeof p === 'string').at(-1);
  const field = name ? humanizeIdentifier(name) : null;
  // zod's own messages for wrong types read better with the field's name, in words, in front.
  return issue.code === 'invalid_type' && field && issue.message.startsWith('Invalid input') ? `${field}: ${issue.message}` : issue.message;
}

/** Per-procedure facts the middleware reads. */
export interface ProcedureMeta {
  /** A mutation that writes nothing the read cache holds (sessions, API keys, a user's view), so it leaves the cache as it is. */
  keepsReadCache?: boolean;
}

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    // Inputs are parsed from each request's body, never shared: decoded in place, not deep-copied
    // first (a gateway report carries thousands of records).
    transformer: { serialize: superjson.serialize, deserialize: (value) => superjson.deserialize(value, { inPlace: true }) },
    errorFormatter({ shape, error }) {
      const cause = error.cause;
      const details = cause instanceof DomainError ? (cause.details ?? null) : null;
      const message = cause instanceof ZodError ? firstZodMessage(cause) : error.code === 'INTERNAL_SERVER_ERROR' ? 'Internal server error' : shape.message;
      // The stable code of the English text (docs/api-errors.md) beside tRPC's own `code`, and the
      // text's varying parts, which a translation puts in its own words.
      const described = describeError(message);
      const errorCode = described?.code ?? genericErrorCode(shape.data.httpStatus);
      return {
        ...shape,
        message,
        data: {
          ...shape.data,
          stack: undefined,
          details,
          reason: cause instanceof DomainError ? cause.code : null,
          errorCode,
          errorParams: described?.params ?? null,
        },
      };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const middleware = t.middleware;

/** A domain error as tRPC reports it (code, message, the domain error as cause). */
export function trpcErrorFrom(err: DomainError): TRPCError {
  return new TRPCError({ code: TRPC_CODE[err.code], message: err.message, cause: err });
}

const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof DomainError) throw trpcErrorFrom(result.error.cause);
  return result;
});

/** PostgreSQL text cannot hold NUL (U+0000): any string or key with one is refused up front. */
function containsNul(input: unknown): boolean {
  const stack: unknown[] = [input];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (Array.isArray(v)) {
      // Arrays by index: a gateway report carries 10,000s of rows, an entries array per row showed in profiles.
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (v !== null && typeof v === 'object') {
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        if (k.includes('\u0000')) return true;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return false;
}

export const INVALID_CHARACTERS = 'Input contains invalid characters';

const rejectNul = t.middleware(async ({ getRawInput, next }) => {
  if (containsNul(await getRawInput())) throw new TRPCError({ code: 'BAD_REQUEST', message: INVALID_CHARACTERS });
  return next();
});

/** A mutation has committed (or failed) by the time it returns: nothing cached before it may be served. */
const invalidateReads = t.middleware(async ({ ctx, type, meta, next }) => {
  if (type !== 'mutation' || meta?.keepsReadCache) return next();
  try {
    return await next();
  } finally {
    ctx.deps.cache.invalidate();
  }
});

export const publicProcedure = t.procedure.use(invalidateReads).use(domainErrors).use(rejectNul);

const signedInProcedure = publicProcedure.use(({ ctx, next }) => {
  if (ctx.apiKeyRefused) throw new TRPCError({ code: 'UNAUTHORIZED', message: ctx.apiKeyRefused });
  if (ctx.accountRefused) throw new TRPCError({ code: 'FORBIDDEN', message: ctx.accountRefused });
  if (ctx.suspended) throw new TRPCError({ code: 'FORBIDDEN', message: ACCOUNT_DISABLED_MESSAGE });
  if (!ctx.user) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Not authenticated' });
  return next({ ctx: { ...ctx, user: ctx.user } });
});

/** Who made a change on the account: the key it came through, else the person (owner or member). */
function accountActorOf(ctx: Pick<Context, 'apiKey' | 'actor'> & { user: NonNullable<Context['user']> }): AuditActor {
  if (ctx.apiKey) return { kind: 'key', id: ctx.apiKey.id, name: ctx.apiKey.name };
  if (ctx.actor) return { kind: 'member', id: ctx.actor.id, name: ctx.actor.name };
  return { kind: 'member', id: ctx.user.id, name: ctx.user.name };
}

/** Every change made on an account (not reads), after it succeeded, in the account's own audit log. */
const auditAccountChanges = t.middleware(async ({ ctx, path, type, getRawInput, next }) => {
  const audited = AUDITED_PROCEDURES[path];
  if (type !== 'mutation' || !audited || !ctx.user) return next();
  const input = await getRawInput();
  const before = await auditTargetBefore(ctx.db, ctx.user.id, path, input);
  const result = await next();
  if (!result.ok) return result;
  await recordAccountAudit(ctx.db, ctx.user.id, accountActorOf({ ...ctx, user: ctx.user }), audited.action, auditTarget(path, input, result.data, before));
  return result;
});

/** Whether the caller holds a scope: a session and the Default key hold them all; other keys only those they were given. */
export function holdsScope(ctx: Pick<Context, 'apiKey'>, scope: RequiredScope): boolean {
  if (!ctx.apiKey || ctx.apiKey.isDefault) return true;
  return scope !== ACCOUNT_ADMIN_SCOPE && ctx.apiKey.scopes.includes(scope);
}

/** A member acting on a team's account may do what their role allows (docs/teams.md). */
function refuseRole(ctx: Pick<Context, 'actor'>, right: TeamRight): void {
  if (ctx.actor && !roleAllows(ctx.actor.role, right)) throw new TRPCError({ code: 'FORBIDDEN', message: roleRefusal(ctx.actor.role, right) });
}

/**
 * A user procedure an API key may call only with this scope (docs/api-keys.md lists which is which),
 * and a team member only with a role that holds it. `anyMember`: every role may (the account itself).
 */
export function scopedProcedure(scope: RequiredScope, opts: { anyMember?: boolean } = {}) {
  return signedInProcedure
    .use(({ ctx, next }) => {
      if (!holdsScope(ctx, scope)) throw new TRPCError({ code: 'FORBIDDEN', message: missingScopeMessage(scope) });
      if (!opts.anyMember) refuseRole(ctx, scope);
      return next();
    })
    .use(auditAccountChanges);
}

/**
 * Account administration (password, two-factor, Telegram, the account itself): a session or the
 * Default key. Deny by default: a user procedure not built from `scopedProcedure` is this. A member
 * acting on a team's account administers their own account here, never the team's.
 */
export const userProcedure = signedInProcedure
  .use(({ ctx, next }) => {
    if (!holdsScope(ctx, ACCOUNT_ADMIN_SCOPE)) throw new TRPCError({ code: 'FORBIDDEN', message: missingScopeMessage(ACCOUNT_ADMIN_SCOPE) });
    if (ctx.self) return next({ ctx: { ...ctx, user: ctx.self, actor: null, self: null } });
    return next();
  })
  .use(auditAccountChanges);

/**
 * The team account's own administration: its members, API keys and audit log. Keys with scopes are
 * refused (`account:admin`); a member needs a role that holds the right (admin; developer for keys).
 */
export function teamProcedure(right: Exclude<TeamRight, RequiredScope>) {
  return signedInProcedure
    .use(({ ctx, next }) => {
      if (!holdsScope(ctx, ACCOUNT_ADMIN_SCOPE)) throw new TRPCError({ code: 'FORBIDDEN', message: missingScopeMessage(ACCOUNT_ADMIN_SCOPE) });
      refuseRole(ctx, right);
      return next();
    })
    .use(auditAccountChanges);
}

/** Who is acting, for the audit log. */
export function actorOf(ctx: Pick<Context, 'admin' | 'internal' | 'req'>): Actor {
  return {
    actor: ctx.admin ? `admin:${ctx.admin.username}` : ctx.internal ? 'internal' : 'anonymous',
    adminId: ctx.admin?.id ?? null,
    sourceAddress: ctx.req.ip,
  };
}

/** The thing an input names, for the audit log's target column. */
function targetOf(path: string, input: unknown): string | null {
  if (!input || typeof input !== 'object') return null;
  const i = input as Record<string, unknown>;
  // A bare `id` is a user's in the user procedures (admin.suspendUser), an admin's in the admin ones.
  const idKind = /User/.test(path) ? 'user' : /Admin/.test(path) ? 'admin' : 'id';
  for (const [key, kind] of [
    ['userId', 'user'],
    ['adminId', 'admin'],
    ['code', 'code'],
    ['paymentId', 'payment'],
    ['username', 'admin'],
    ['id', idKind],
  ] as const) {
    if (typeof i[key] === 'string') return `${kind}:${i[key]}`;
  }
  return null;
}

/**
 * Every admin or internal-key mutation that succeeded is recorded (after it committed) with its
 * input, secrets removed, and the reason it was given. Gateway metering calls are not: they are
 * machine traffic with a record of their own (gateway_reports, leases).
 */
const auditMutations = t.middleware(async ({ ctx, path, type, getRawInput, next }) => {
  const result = await next();
  if (type !== 'mutation' || !result.ok || path.startsWith('gateway.') || !(ctx.admin || ctx.internal)) return result;
  const input = await getRawInput();
  const reason = input && typeof input === 'object' && typeof (input as { reason?: unknown }).reason === 'string' ? (input as { reason: string }).reason : null;
  await recordAudit(ctx.db, actorOf(ctx), { action: path, target: targetOf(path, input), changes: { input: input ?? null }, reason });
  return result;
});

export const adminProcedure = publicProcedure
  .use(({ ctx, next }) => {
    if (!ctx.admin) {
      throw new TRPCError(ctx.user ? { code: 'FORBIDDEN', message: 'Admin access required' } : { code: 'UNAUTHORIZED', message: 'Admin login required' });
    }
    return next({ ctx: { ...ctx, admin: ctx.admin } });
  })
  .use(auditMutations);

export const internalProcedure = publicProcedure
  .use(({ ctx, next }) => {
    if (!ctx.internal) throw new TRPCError({ code: ctx.user || ctx.admin ? 'FORBIDDEN' : 'UNAUTHORIZED', message: 'Internal key required' });
    return next();
  })
  .use(auditMutations);

/** Internal tools and the admin panel call the same procedures; which admins may is the role guard's. */
const adminOrInternalBase = publicProcedure
  .use(({ ctx, next }) => {
    if (!ctx.internal && !ctx.admin) {
      throw new TRPCError(ctx.user ? { code: 'FORBIDDEN', message: 'Admin access required' } : { code: 'UNAUTHORIZED', message: 'Admin login required' });
    }
    return next();
  })
  .use(auditMutations);

/**
 * An admin procedure open to owners and the roles named (the internal key is refused nothing).
 * Deny by default: `adminOrInternalProcedure` names none, so a new procedure is owner-only until
 * it is built from `financeProcedure`, `supportProcedure` or `staffProcedure`.
 */
function forRoles(...roles: AdminRole[]) {
  const admits = new Set<AdminRole>(['owner', ...roles]);
  return adminOrInternalBase.use(({ ctx, next }) => {
    if (ctx.admin && !admits.has(ctx.admin.role)) throw new TRPCError({ code: 'FORBIDDEN', message: NOT_ALLOWED_FOR_ROLE });
    return next();
  });
}

/** Owners only: upstreams, gateways, catalogue, target policy, admins, and anything not marked. */
export const adminOrInternalProcedure = forRoles();
export const ownerProcedure = adminOrInternalProcedure;
/** Owners and finance: payments, pricing, promotions, refunds, the overview. */
export const financeProcedure = forRoles('finance');
/** Owners and support: user actions (suspend, adjust), codes. */
export const supportProcedure = forRoles('support');
/** Every admin role: reading users and the audit log. */
export const staffProcedure = forRoles('finance', 'support');
