import { expect } from 'vitest';
import { upsertAdmin } from '@proxyhub/api';
import type { HttpClient } from './http-client';
import { linkToken } from './mail';
import type { TestServer } from './server';

export const STRONG_PASSWORD = 'Secret123';
export const ADMIN_USERNAME = 'root';
export const ADMIN_PASSWORD = 'Admin-Password-123';

let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** Registers, verifies from the outbox and signs in: a ready user through the product's own API. */
export async function signedInUser(server: TestServer, name = 'Test User', opts: { client?: HttpClient; email?: string; referralCode?: string } = {}) {
  const email = opts.email ?? uniqueEmail();
  const client = opts.client ?? server.client();
  const reg = await client.post('/auth/register', {
    email,
    password: STRONG_PASSWORD,
    name,
    ...(opts.referralCode ? { referralCode: opts.referralCode } : {}),
  });
  if (reg.status !== 200) throw new Error(`register failed: ${JSON.stringify(reg.body)}`);
  await server.settle();
  const token = linkToken(server.mails(email).at(-1)!);
  const verify = await client.get(`/auth/verify-email?token=${token}`);
  if (verify.status !== 200) throw new Error(`verify failed: ${JSON.stringify(verify.body)}`);
  const login = await client.post<{ user: { id: string; apiKey: string; proxyUserId: string; proxyPassword: string } }>('/auth/login', {
    email,
    password: STRONG_PASSWORD,
  });
  if (login.status !== 200) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  return { client, email, user: login.body.user };
}

/** The admin the start-up bootstrap would create, then signed in over the REST path. */
export async function adminClient(server: TestServer): Promise<HttpClient> {
  await upsertAdmin(server.deps.db, { username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
  const client = server.client();
  const r = await client.post('/auth/admin/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
  expect(r.status).toBe(200);
  return client;
}
