/**
 * Plain words: no message a customer or an admin can read names a field as code does
 * ("capGB must be a number or null"). Every REST path the app uses is sent empty and invalid
 * input (signed in as a user and as an owner), and every field of every path's schema is given
 * values of the wrong type and out of range; each message is checked for a camelCase identifier.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZodError, z } from 'zod';
import { firstZodMessage } from '@proxyhub/api';
import { restRoutes } from '../src/rest';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from './credits-helpers';
import { adminClient, signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

const CAMEL_CASE = /\b[a-z]+[A-Z][a-zA-Z]*\b/;
const BAD_VALUES: unknown[] = [null, {}, '', 'x', 0, -1, 0.001, 1e12, true, [], ['x'], [{}], 'a'.repeat(3000), '2000-01-01T00:00'];
/** Paths that end the session the walk uses. */
const SKIPPED = new Set(['POST /auth/logout', 'POST /auth/admin/logout']);

/** The schema's top-level fields, inside optional wrappers. */
function fieldsOf(schema: z.ZodType): string[] {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
  if (s instanceof z.ZodPipe) return fieldsOf(s.in as z.ZodType);
  return s instanceof z.ZodObject ? Object.keys(s.shape) : [];
}

let server: TestServer;
let client: HttpClient;

beforeAll(async () => {
  server = await startTestServer();
  // One client signed in twice: as a customer and as the owner (separate cookies), so every path gets past its guard.
  ({ client } = await signedInUser(server, 'Plain Words'));
  await adminClient(server);
  expect((await client.post('/auth/admin/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD })).status).toBe(200);
});
afterAll(() => server?.close());

describe('plain words in error messages', () => {
  it('every field of every REST path, given bad values, is refused in words', () => {
    const found: string[] = [];
    for (const r of restRoutes) {
      if (!r.input) continue;
      const fields = fieldsOf(r.input.schema);
      const probes: unknown[] = [undefined, null, 'x', {}, ...fields.flatMap((f) => BAD_VALUES.map((v) => ({ [f]: v })))];
      for (const probe of probes) {
        const res = r.input.schema.safeParse(probe);
        if (res.success) continue;
        for (const issue of res.error.issues) {
          const message = firstZodMessage(new ZodError([issue]));
          if (CAMEL_CASE.test(message)) found.push(`${r.method} ${r.url}: ${message}`);
        }
      }
    }
    expect([...new Set(found)]).toEqual([]);
  });

  it('every REST path, sent empty and invalid bodies, answers in words', async () => {
    const found: string[] = [];
    let walked = 0;
    for (const r of restRoutes) {
      const key = `${r.method} ${r.url}`;
      if (SKIPPED.has(key)) continue;
      const fields = r.input ? fieldsOf(r.input.schema) : [];
      const bodies: Record<string, unknown>[] = [{}, ...['x', 0, 1].map((v) => Object.fromEntries(fields.map((f) => [f, v])))];
      for (const body of bodies) {
        const url = r.url.replace(/:\w+/g, 'nope');
        const query = new URLSearchParams(Object.entries(body).map(([k, v]): [string, string] => [k, String(v)])).toString();
        const res =
          r.input?.from !== 'body'
            ? await client.request<{ error?: unknown }>(r.method, query ? `${url}?${query}` : url)
            : await client.request<{ error?: unknown }>(r.method, url, body);
        walked += 1;
        expect(res.status, key).toBeLessThan(500);
        const error = typeof res.body === 'object' && res.body ? res.body.error : undefined;
        if (typeof error === 'string' && CAMEL_CASE.test(error)) found.push(`${key} ${JSON.stringify(body)}: ${error}`);
      }
    }
    expect(walked).toBeGreaterThan(300);
    expect([...new Set(found)]).toEqual([]);
    // About 370 requests: seconds alone, more on a loaded machine.
  }, 120_000);
});
