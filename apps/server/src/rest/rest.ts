import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { firstZodMessage, type ApiDeps } from '@proxyhub/api';
import { DomainError } from '@proxyhub/core';
import { callerFor, type Caller } from '../request-adapter';

export type { Caller };

/** A shim's answer when it needs a status other than 200. */
export class RestResponse {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/** The spec's error body from a tRPC error: its message, or the first zod message word for word. */
export function restError(err: TRPCError): { status: number; body: { success: false; error: string }; retryAfter?: number } {
  const cause = err.cause;
  const message = cause instanceof ZodError ? firstZodMessage(cause) : err.code === 'INTERNAL_SERVER_ERROR' ? 'Internal server error' : err.message;
  const retry = cause instanceof DomainError ? cause.details?.retryAfterSeconds : undefined;
  return {
    status: getHTTPStatusCodeFromError(err),
    body: { success: false, error: message },
    ...(typeof retry === 'number' ? { retryAfter: retry } : {}),
  };
}

/** JSON bigint values become numbers: bytes stay exact below 2^53 (8 PiB). */
export function jsonSafe(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)));
}

/**
 * Wraps a REST shim: builds the same context and caller as tRPC, passes the body (or query), and
 * maps errors through the one mapper. Shims only translate field names.
 */
export function rest(
  deps: ApiDeps,
  handler: (caller: Caller, input: unknown, req: FastifyRequest) => Promise<unknown>,
  /** Fields a path's error answers carry besides success and error (the spec's login answer has requiresVerification). */
  errorFields: Record<string, unknown> = {},
) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    try {
      const caller = await callerFor(deps, req, reply);
      const input = req.method === 'GET' ? req.query : (req.body ?? {});
      const result = await handler(caller, input, req);
      if (result instanceof RestResponse) return reply.code(result.status).send(jsonSafe(result.body));
      return reply.send(jsonSafe(result));
    } catch (err) {
      if (err instanceof TRPCError) {
        const { status, body, retryAfter } = restError(err);
        if (status >= 500) req.log.error({ err: err.cause ?? err }, 'procedure failed');
        if (retryAfter) reply.header('retry-after', String(retryAfter));
        return reply.code(status).send({ ...body, ...errorFields });
      }
      throw err;
    }
  };
}
