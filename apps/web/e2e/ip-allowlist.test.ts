/**
 * Settings → IP Allow-List in Chromium: a bad entry is refused with its name, the address the page
 * is used from is a one-click entry, password-less access is switched on and saved. Then a second
 * Chromium, started with `--proxy-server=socks5://127.0.0.1:<gateway port>` (it cannot send SOCKS5
 * credentials at all), loads a page from a local target through the real gateway: refused before
 * the address is password-less, served and billed after.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createGateway, type Gateway } from '@proxyhub/gateway';
import { addCredits, hourlyUsage, startTarget } from '@proxyhub/testing';
import { INTERNAL_KEY, launchSocksChromium, loadText, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let page: Page;
let gateway: Gateway;
let gatewayPort: number;
let target: Awaited<ReturnType<typeof startTarget>>;
let proxied: Browser | undefined;

beforeAll(async () => {
  e2e = await startE2E();
  gateway = createGateway({ gatewayId: `e2e-${randomUUID().slice(0, 8)}`, serverUrl: e2e.server.url, internalApiKey: INTERNAL_KEY, allowPrivate: true });
  gatewayPort = (await gateway.listen(0, '127.0.0.1')).port;
  target = await startTarget();
  page = await e2e.newPage();
  await signUpAndLogIn(e2e, page, 'Allow-List Tester');
});
afterAll(async () => {
  await proxied?.close();
  await gateway?.close();
  await target?.close();
  await e2e?.close();
});

type Allowlist = { entries: string[]; passwordless: boolean; currentAddress: string };
const serverList = () => page.evaluate(async () => (await (await fetch('/api/ip-allowlist')).json()) as Allowlist);

/** A page loaded by a Chromium whose every request goes through the gateway's SOCKS5 endpoint. */
async function throughSocks(url: string): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  proxied ??= await launchSocksChromium(gatewayPort);
  return loadText(proxied, url);
}

describe('settings: IP allow-list', () => {
  it('edits the list, offers the current address, saves password-less access; Chromium then browses through SOCKS5 without credentials', async () => {
    const me = await page.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: { id: string } }).user);
    await addCredits(e2e.server, me.id, 1n << 30n);

    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('tab', { name: 'API & proxy' }).waitFor();
    await page.getByRole('heading', { name: 'IP Allow-List' }).waitFor();
    await page.getByText('No addresses: any address may use your credentials.').waitFor();
    await expect.poll(() => page.getByTestId('current-address').innerText()).toContain('You are using this page from 127.0.0.1.');

    // Before anything is password-less, a browser without credentials is refused.
    const before = await throughSocks(`${target.url}/hello`);
    expect(before.ok).toBe(false);

    // Each add and remove is saved at once: there is no separate Save to forget.
    const card = page.locator('section.card').filter({ has: page.getByRole('heading', { name: 'IP Allow-List' }) });
    expect(await card.getByRole('button', { name: /^Save/ }).count()).toBe(0);
    const field = page.getByLabel('Address or range');
    await field.fill('10.0.0.300');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByText('Invalid IP address or CIDR range: "10.0.0.300"').waitFor();
    expect((await serverList()).entries).toEqual([]);
    // A range wider than /8 is refused; host bits set are saved cleared, and the card says so.
    await field.fill('10.0.0.0/0');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByText('Range too wide: "10.0.0.0/0". The allow-list takes ranges of at most /8 (IPv4) or /32 (IPv6)').waitFor();
    expect((await serverList()).entries).toEqual([]);
    await field.fill('192.168.1.7/16');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page
      .getByText(
        'Allow-list saved: 192.168.0.0/16 added. 192.168.1.7/16 was saved as 192.168.0.0/16. Your proxy credentials work only from the range 192.168.0.0/16.',
        { exact: false },
      )
      .waitFor();
    expect((await serverList()).entries).toEqual(['192.168.0.0/16']);
    await page.getByRole('button', { name: 'Remove 192.168.0.0/16' }).click();
    await page.getByText('Allow-list saved: 192.168.0.0/16 removed.').waitFor();
    await field.fill('2001:DB8::/48');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByText('Allow-list saved: 2001:db8::/48 added.').waitFor();
    expect((await serverList()).entries).toEqual(['2001:db8::/48']);
    await page.getByRole('button', { name: 'Add 127.0.0.1' }).click();
    const list = page.getByRole('list', { name: 'Allowed addresses' });
    await expect.poll(() => list.locator('code').allInnerTexts()).toEqual(['2001:db8::/48', '127.0.0.1']);
    expect(await page.getByRole('button', { name: 'Add 127.0.0.1' }).count()).toBe(0);
    expect(await serverList()).toMatchObject({ entries: ['2001:db8::/48', '127.0.0.1'], passwordless: false });

    // Password-less with a /48 is refused by the server with its reason (the box stays off); without it, saved.
    const passwordless = page.getByLabel(/Password-less access from these addresses/);
    await passwordless.click();
    await page.getByText(/Password-less access needs single addresses or ranges no wider than \/24 \(IPv4\) or \/56 \(IPv6\): 2001:db8::\/48/).waitFor();
    expect(await serverList()).toMatchObject({ entries: ['2001:db8::/48', '127.0.0.1'], passwordless: false });
    await expect.poll(() => passwordless.isChecked()).toBe(false);
    await page.getByRole('button', { name: 'Remove 2001:db8::/48' }).click();
    await page.getByText('Allow-list saved: 2001:db8::/48 removed.').waitFor();
    await passwordless.click();
    await page
      .getByText(/Allow-list saved: password-less access on\. Your proxy credentials work only from the address 127\.0\.0\.1, without a password too/)
      .waitFor();
    expect(await serverList()).toEqual({ entries: ['127.0.0.1'], passwordless: true, currentAddress: '127.0.0.1', entryPorts: { from: 20000, to: 20099 } });
    await screenshots(page, 'settings-ip-allowlist');

    await page.reload();
    await page.getByRole('heading', { name: 'IP Allow-List' }).waitFor();
    await expect.poll(() => list.locator('code').allInnerTexts()).toEqual(['127.0.0.1']);
    expect(await page.getByLabel(/Password-less access from these addresses/).isChecked()).toBe(true);

    // The gateway's negative answer for this address may be cached for a moment: retry briefly.
    let loaded = await throughSocks(`${target.url}/hello`);
    for (let i = 0; i < 20 && !loaded.ok; i++) {
      await new Promise((r) => setTimeout(r, 250));
      loaded = await throughSocks(`${target.url}/hello`);
    }
    expect(loaded).toEqual({ ok: true, text: 'hello from target' });
    await gateway.flush();
    const usage = await hourlyUsage(e2e.server, me.id);
    expect(usage.down).toBeGreaterThan(0);
    expect(usage.sessions).toBeGreaterThan(0);
  });
});
