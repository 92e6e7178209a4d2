import { TRPCClientError } from '@trpc/client';

/**
 * What a failed call shows: the server's own message when the server answered (the spec's
 * "error field"), else the call's fallback; when no answer came at all (network down), the
 * screen's fallback if it has one.
 */
export function errorMessage(err: unknown, callFallback: string, screenFallback?: string): string {
  if (err instanceof TRPCClientError) {
    const answered = Boolean((err as TRPCClientError<never>).data) || Boolean((err as TRPCClientError<never>).shape);
    if (answered) return err.message || callFallback;
    return screenFallback ?? callFallback;
  }
  return screenFallback ?? callFallback;
}

export function errorCode(err: unknown): string | undefined {
  if (err instanceof TRPCClientError) {
    const data = (err as TRPCClientError<never>).data as { code?: string } | undefined;
    return data?.code;
  }
  return undefined;
}

export const isUnauthorized = (err: unknown) => errorCode(err) === 'UNAUTHORIZED';
