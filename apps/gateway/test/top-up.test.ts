/**
 * With the gateway's default settings, a user who ran out of data is let in again within 1 s of a
 * top-up (the gateway asks the server again half a second after it said "empty").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, basic, curl, expectLedgerHolds, rawExchange, startStack, startTarget, userWithCredits, type Stack } from './helpers';

const MiB = 1024 * 1024;

/** One request forwarded by the gateway, sent from this process (no client process to start, which a loaded machine makes slow): its status. */
async function statusVia(port: number, url: string, username: string, password: string): Promise<number> {
  const head = `GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\nProxy-Authorization: ${basic(username, password)}\r\nConnection: close\r\n\r\n`;
  const { data } = await rawExchange(port, [Buffer.from(head)]);
  return Number(/^HTTP\/1\.[01] (\d{3})/.exec(data.toString('latin1'))?.[1] ?? 0);
}
let stack: Stack;
let target: Awaited<ReturnType<typeof startTarget>>;
beforeAll(async () => {
  stack = await startStack();
  target = await startTarget();
});
afterAll(async () => {
  await stack?.close();
  await target?.close();
});

describe('a top-up after the balance ran out', () => {
  it('is usable through the gateway within 1 s', async () => {
    const u = await userWithCredits(stack.server, 2n * BigInt(MiB));
    const via = ['-x', stack.proxyUrl, '-U', `${u.username()}:${u.proxyPassword}`];
    await curl([...via, '-o', '/dev/null', `${target.url}/download?bytes=${4 * MiB}`]);
    expect((await curl([...via, `${target.url}/hello`])).status).toBe(402);

    const admin = await adminClient(stack.server);
    const minted = await admin.post<{ codes: { code: string }[] }>('/admin/codes/create', { creditsGB: 0.1, quantity: 1, expiresAt: null });
    expect((await u.client.post('/auth/redeem-code', { code: minted.body.codes[0]!.code })).status).toBe(200);
    const at = Date.now();
    let status = 0;
    while ((status = await statusVia(stack.port, `${target.url}/hello`, u.username(), u.proxyPassword)) !== 200 && Date.now() - at < 5000) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const ms = Date.now() - at;
    console.log(`accepted ${ms} ms after the top-up`);
    expect(status).toBe(200);
    expect(ms).toBeLessThan(1000);
    await stack.gateway.flush();
    await expectLedgerHolds(stack.server, u.userId);
  });
});
