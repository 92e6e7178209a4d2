import { buildProxyUsername, type ProxyLocation } from '@proxyhub/core';
import { userUsageTotals } from '@proxyhub/api';
import type { HttpClient } from './http-client';
import { addCredits } from './ledger';
import type { TestServer } from './server';
import { signedInUser } from './users';

export interface ProxyUser {
  userId: string;
  /** Signed in as this user (cookie jar). */
  client: HttpClient;
  proxyUserId: string;
  proxyPassword: string;
  username(location?: ProxyLocation, minutes?: number, token?: string): string;
}

/** A registered, verified user (through the product's API) holding `bytes` of credit. */
export async function userWithCredits(server: TestServer, bytes: bigint): Promise<ProxyUser> {
  const { user, client } = await signedInUser(server);
  if (bytes > 0n) await addCredits(server, user.id, bytes);
  return {
    userId: user.id,
    client,
    proxyUserId: user.proxyUserId,
    proxyPassword: user.proxyPassword,
    username: (location = { country: 'US' }, minutes = 60, token) =>
      buildProxyUsername({ proxyUserId: user.proxyUserId, location, durationMinutes: minutes, token }),
  };
}

/** Remaining Data and Total Usage as the user's own session call shows them (bytes). */
export async function balances(u: ProxyUser) {
  const r = await u.client.get<{ user: { credits: number; total_usage_bytes: number } }>('/auth/user');
  if (r.status !== 200) throw new Error(`GET /auth/user: ${r.status}`);
  return { credits: BigInt(r.body.user.credits), usage: BigInt(r.body.user.total_usage_bytes) };
}

/** Hourly usage of the user's proxy accounts, summed. */
export async function hourlyUsage(server: TestServer, userId: string) {
  const r = await userUsageTotals(server.database.db, userId);
  return { up: Number(r.bytesUp), down: Number(r.bytesDown), sessions: r.sessions };
}
