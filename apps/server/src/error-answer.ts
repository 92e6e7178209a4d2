/**
 * The spec's error answer, `{ success: false, error }` with its HTTP status, for every edge that is
 * not tRPC itself (REST shims, payment webhooks): the message, or the first zod message word for
 * word; a 5xx says nothing more than "Internal server error".
 */
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { ZodError } from 'zod';
import { firstZodMessage, trpcErrorFrom } from '@proxyhub/api';
import { DomainError } from '@proxyhub/core';

export interface ErrorAnswer {
  status: number;
  body: { success: false; error: string };
  /** Seconds a rate-limited caller should wait (the Retry-After header). */
  retryAfter?: number;
}

/** The answer for an error a procedure (through a caller) or a service (called directly) threw. */
export function errorAnswer(err: TRPCError | DomainError): ErrorAnswer {
  const error = err instanceof DomainError ? trpcErrorFrom(err) : err;
  const cause = error.cause;
  const message = cause instanceof ZodError ? firstZodMessage(cause) : error.code === 'INTERNAL_SERVER_ERROR' ? 'Internal server error' : error.message;
  const retry = cause instanceof DomainError ? cause.details?.retryAfterSeconds : undefined;
  return {
    status: getHTTPStatusCodeFromError(error),
    body: { success: false, error: message },
    ...(typeof retry === 'number' ? { retryAfter: retry } : {}),
  };
}

/** Errors that have an answer; anything else is a bug and goes to the 500 handler. */
export const hasErrorAnswer = (err: unknown): err is TRPCError | DomainError => err instanceof TRPCError || err instanceof DomainError;
