import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let page: Page;
let user: { id: string; proxyUserId: string; proxyPassword: string };

beforeAll(async () => {
  e2e = await startE2E();
  page = await e2e.newPage();
  await signUpAndLogIn(e2e, page, 'Connection Viewer');
  user = await page.evaluate(
    async () => ((await (await fetch('/auth/user')).json()) as { user: { id: string; proxyUserId: string; proxyPassword: string } }).user,
  );
});
afterAll(async () => {
  await e2e?.close();
});

describe('connection log in the app', () => {
  it('the Connections page lists and filters what the gateway reported; the usage panel counts outcomes with a hint', async () => {
    const gw = e2e.internal.gateway;
    const { account } = await gw.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
    if (!account.ok) throw new Error(account.message);
    const now = Date.now();
    const base = {
      proxyUserId: user.proxyUserId,
      proxyAccountId: account.proxyAccountId,
      country: 'US',
      state: '',
      city: '',
      session: 'rotating',
      bytesUp: 0,
      bytesDown: 0,
      billedBytes: 0,
      reason: '',
    };
    await gw.report.mutate({
      gatewayId: 'e2e-gw-log',
      seq: 1,
      items: [],
      connections: [
        {
          ...base,
          id: randomUUID(),
          startedAt: now - 2000,
          endedAt: now - 1900,
          protocol: 'connect',
          target: 'slow.example:443',
          outcome: 'target_unreachable',
          reason: 'connect ETIMEDOUT',
        },
        { ...base, id: randomUUID(), startedAt: now - 1000, endedAt: now - 900, protocol: 'socks5', target: 'fine.example:443', outcome: 'ok' },
      ],
    });
    await page.goto('/connections');
    const rows = page.getByTestId('connection-row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.first().innerText()).toContain('fine.example:443');
    await page.getByLabel('Outcome').selectOption('target_unreachable');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().innerText()).toContain('slow.example:443');

    await page.goto('/dashboard');
    await expect.poll(() => page.getByTestId('usage-by-outcome').innerText()).toContain('the site did not answer through this exit');
    expect(await page.getByTestId('usage-by-target').innerText()).toContain('slow.example');
  });
});
