/**
 * The spec's error answer, `{ success: false, error, code }` with its HTTP status, for every edge that
 * is not tRPC itself (REST shims, payment webhooks, the server's own refusals): the message, or the
 * first zod message word for word, and its stable code (docs/api-errors.md); a 5xx says nothing more
 * than "Internal server error".
 */
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { ZodError } from 'zod';
import { firstZodMessage, trpcErrorFrom } from '@proxyhub/api';
import { DomainError } from '@proxyhub/core';
import { errorCodeOf } from '@proxyhub/core/i18n';

export type ErrorBody = {
  success: false;
  error: string;
  /** The text's code: a catalogue code, else the kind of error (GENERIC_ERROR_CODES). */
  code: string;
};

/** The body of an error answer: every one the server writes goes through here, so each carries its code. */
export const errorBody = (status: number, error: string): ErrorBody => ({ success: false, error, code: errorCodeOf(error, status) });

export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
  /** Seconds a rate-limited caller should wait (the Retry-After header). */
  retryAfter?: number;
}

/** The answer for an error a procedure (through a caller) or a service (called directly) threw. */
export function errorAnswer(err: TRPCError | DomainError): ErrorAnswer {
  const error = err instanceof DomainError ? trpcErrorFrom(err) : err;
  const cause = error.cause;
  const message = cause instanceof ZodError ? firstZodMessage(cause) : error.code === 'INTERNAL_SERVER_ERROR' ? 'Internal server error' : error.message;
  const retry = cause instanceof DomainError ? cause.details?.retryAfterSeconds : undefined;
  const status = getHTTPStatusCodeFromError(error);
  return {
    status,
    body: errorBody(status, message),
    ...(typeof retry === 'number' ? { retryAfter: retry } : {}),
  };
}

/** Errors that have an answer; anything else is a bug and goes to the 500 handler. */
export const hasErrorAnswer = (err: unknown): err is TRPCError | DomainError => err instanceof TRPCError || err instanceof DomainError;
