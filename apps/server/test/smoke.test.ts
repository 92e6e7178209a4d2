import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInUser, startTestServer, type TestServer } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('smoke', () => {
  it('serves health and a full sign-up', async () => {
    const health = await server.client().get('/health');
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    const { client, email } = await signedInUser(server);
    const me = await client.get('/auth/user');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ success: true, user: { email } });
  });
});
