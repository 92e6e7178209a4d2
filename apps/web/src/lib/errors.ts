import type { TRPCClientError } from '@trpc/client';

/** By name, not instanceof: the signed-out pages show errors without having loaded the tRPC client. */
const isTRPCClientError = (err: unknown): err is TRPCClientError<never> => err instanceof Error && err.name === 'TRPCClientError';

/**
 * What a failed call shows: the server's own message when the server answered (the spec's
 * "error field"), else the call's fallback; when no answer came at all (network down), the
 * screen's fallback if it has one.
 */
export function errorMessage(err: unknown, callFallback: string, screenFallback?: string): string {
  if (isTRPCClientError(err)) {
    const answered = Boolean(err.data) || Boolean(err.shape);
    if (answered) return err.message || callFallback;
    return screenFallback ?? callFallback;
  }
  return screenFallback ?? callFallback;
}

export function errorCode(err: unknown): string | undefined {
  if (isTRPCClientError(err)) {
    const data = err.data as { code?: string } | undefined;
    return data?.code;
  }
  return undefined;
}

export const isUnauthorized = (err: unknown) => errorCode(err) === 'UNAUTHORIZED';
