/**
 * Proxies → "Test" in Chromium: the generated list's first line is tried through a real gateway to
 * a loopback IP-echo page and the page shows that it works, its latency and the exit address; a
 * pasted line of someone else is refused with the server's words; a dead check page is blamed on
 * the page, not the line. "New IP" beside each generated sticky line and on a Test result moves
 * the line's rotation counter (what every gateway derives its new session from); a rotating list
 * has no such action.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createGateway, type Gateway } from '@proxyhub/gateway';
import { addCredits, internalClient, startTarget, userWithCredits } from '@proxyhub/testing';
import { INTERNAL_KEY, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let page: Page;
let gateway: Gateway;
let target: Awaited<ReturnType<typeof startTarget>>;

beforeAll(async () => {
  e2e = await startE2E();
  gateway = createGateway({ gatewayId: `e2e-${randomUUID().slice(0, 8)}`, serverUrl: e2e.server.url, internalApiKey: INTERNAL_KEY, allowPrivate: true });
  const { port } = await gateway.listen(0, '127.0.0.1');
  target = await startTarget();
  e2e.server.config.proxyCheck = { url: `${target.url}/ip`, gateway: { host: '127.0.0.1', port } };
  page = await e2e.newPage();
  await signUpAndLogIn(e2e, page, 'Line Tester');
});
afterAll(async () => {
  await gateway?.close();
  await target?.close();
  await e2e?.close();
});

describe('proxies: test a line', () => {
  it('tests the first generated line and shows ok, latency and exit IP; a line of someone else is refused', async () => {
    const me = await page.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: { id: string } }).user);
    await addCredits(e2e.server, me.id, 1n << 30n);
    await page.reload(); // the balance the page shows
    await page.getByRole('link', { name: 'Proxies', exact: true }).click();
    await page.getByRole('heading', { name: 'Generate Proxies' }).waitFor();
    await page.getByRole('button', { name: 'Generate Proxies' }).click();
    await page.getByTestId('generated-count').filter({ hasText: '10 proxies generated' }).waitFor();

    const result = page.getByTestId('line-test-result');
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await result.getByText('The line works').waitFor();
    // The answer, then (a sticky line) its "New IP" action.
    expect(await result.locator('.alert').first().innerText()).toMatch(/^✓\s*The line works: \d{1,3}(,\d{3})* ms, exit IP 127\.0\.0\.1, country unknown\.$/);
    expect(await result.getByRole('button', { name: /^New IP for / }).count()).toBe(1);
    await screenshots(page, 'proxies-line-test');

    const other = await userWithCredits(e2e.server, 0n);
    await page.getByLabel('Test a line').fill(`localhost:3001:${other.username()}:${other.proxyPassword}`);
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await result.getByText('Not one of your proxy lines').waitFor();
    expect(await result.innerText()).toContain(`Not one of your proxy lines: ${other.proxyUserId} is not your proxy user ID or one of your proxy accounts`);
  });

  it.each([
    { width: 1366, height: 800 },
    { width: 390, height: 844 },
  ])('at $width x $height: a good line whose check page is down says the line works, not that it failed', async (size) => {
    await page.setViewportSize(size);
    const { port: gatewayPort } = e2e.server.config.proxyCheck!.gateway;
    const dead = createServer();
    dead.listen(0, '127.0.0.1');
    await once(dead, 'listening');
    const deadPort = (dead.address() as AddressInfo).port;
    dead.close();
    e2e.server.config.proxyCheck = { url: `http://127.0.0.1:${deadPort}/`, gateway: { host: '127.0.0.1', port: gatewayPort } };
    try {
      await page.getByLabel('Test a line').fill('');
      await page.getByRole('button', { name: 'Test', exact: true }).click();
      const result = page.getByTestId('line-test-result');
      await result.getByText('The line works, but the check page could not be reached').waitFor();
      expect(await result.innerText()).toContain(
        `The line works, but the check page could not be reached: Cannot connect to 127.0.0.1:${deadPort} (ECONNREFUSED)`,
      );
      expect(await result.innerText()).not.toContain('did not work');
      expect(await result.getByRole('alert').count()).toBe(0);
    } finally {
      e2e.server.config.proxyCheck = { url: `${target.url}/ip`, gateway: { host: '127.0.0.1', port: gatewayPort } };
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('"New IP" beside a generated sticky line and on the Test result gives the line a new session; a rotating list has none', async () => {
    await page.getByLabel('Session Duration').selectOption('60');
    await page.getByRole('button', { name: 'Generate Proxies' }).click();
    await page.getByTestId('generated-count').filter({ hasText: '10 proxies generated' }).waitFor();
    const first = page
      .getByTestId('proxy-output')
      .getByRole('button', { name: /^New IP for / })
      .first();
    const username = (await first.getAttribute('aria-label'))!.replace('New IP for ', '');
    const me = await page.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: { proxyUserId: string; proxyPassword: string } }).user);
    expect(username).toMatch(new RegExp(`^${me.proxyUserId}_[A-Z]{2}_60_[A-Z0-9]{8}$`));
    const rotations = async () =>
      (await internalClient(e2e.server).gateway.authorize.mutate({ proxyUserId: me.proxyUserId, password: me.proxyPassword })).account;

    await first.click();
    const listResult = page.getByTestId('new-ip-result').first();
    await listResult.getByText(`New IP for ${username}`).waitFor();
    expect(await listResult.innerText()).toContain(
      `New IP for ${username}: every gateway gives it a new exit within 5 seconds, and its open connections are closed.`,
    );
    expect(await rotations()).toMatchObject({ rotations: [{ token: username.split('_')[3], count: 1 }] });
    await screenshots(page, 'proxies-new-ip');

    // The Test result of that line offers it too (the list's first line is the one tested).
    await page.getByLabel('Test a line').fill('');
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    const result = page.getByTestId('line-test-result');
    await result.getByText('The line works').waitFor();
    await result.getByRole('button', { name: `New IP for ${username}` }).click();
    await result.getByText(`New IP for ${username}: every gateway`).waitFor();
    expect(await rotations()).toMatchObject({ rotations: [{ token: username.split('_')[3], count: 2 }] });

    // Rotating lines get a new IP on every connection: no action for them.
    await page.getByLabel('Session Duration').selectOption({ label: 'Rotating (new IP per connection)' });
    await page.getByRole('button', { name: 'Generate Proxies' }).click();
    await page
      .getByTestId('proxy-output')
      .getByText(/_0_[A-Z0-9]{8}/)
      .first()
      .waitFor();
    expect(
      await page
        .getByTestId('proxy-output')
        .getByRole('button', { name: /^New IP for / })
        .count(),
    ).toBe(0);
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    // The sticky line's answer (and its action) goes first; then the rotating line's comes, without one.
    await result.getByRole('button', { name: /^New IP/ }).waitFor({ state: 'detached' });
    await result.getByText('The line works').waitFor();
    expect(await result.getByRole('button', { name: /^New IP/ }).count()).toBe(0);
  });
});
