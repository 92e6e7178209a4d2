/**
 * Settings → IP Allow-List → Location per port in Chromium: the entry port range is shown, a port is
 * set for proxy account B in FR (sticky) and another for account C in DE (rotating). Then Chromium,
 * started with `--proxy-server=socks5://127.0.0.1:<entry port>` (no credentials at all), exits
 * through a fake FR provider as B on one port and through a fake DE provider as C on the other, each
 * provider accepting only its own username grammar; B's cap stops B's port only.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createGateway, type Gateway } from '@proxyhub/gateway';
import { addCredits, adminClient, curl, freePortRange, startFakeConnectProvider, startTarget } from '@proxyhub/testing';
import { INTERNAL_KEY, launchSocksChromium, loadText, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

const MiB = 1024 * 1024;
let e2e: E2E;
let page: Page;
let gateway: Gateway;
let ports: { from: number; to: number };
let target: Awaited<ReturnType<typeof startTarget>>;
let fr: Awaited<ReturnType<typeof startFakeConnectProvider>>;
let de: Awaited<ReturnType<typeof startFakeConnectProvider>>;
const browsers: Browser[] = [];

beforeAll(async () => {
  ports = await freePortRange(2);
  e2e = await startE2E({ gateway: { publicHost: null, publicPort: 3001, entryPorts: ports } });
  // Each fake provider takes only its own grammar: FR a sticky session, DE none.
  fr = await startFakeConnectProvider((auth) => /^fr-FR-sess-\w+:fr-secret$/.test(auth));
  de = await startFakeConnectProvider((auth) => auth === 'de-DE:de-secret');
  const admin = await adminClient(e2e.server);
  for (const body of [
    { name: 'FR pool', port: fr.port, usernameTemplate: 'fr-{country}-sess-{session}', password: 'fr-secret', countries: ['FR'] },
    { name: 'DE pool', port: de.port, usernameTemplate: 'de-{country}', password: 'de-secret', countries: ['DE'] },
  ]) {
    const r = await admin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', {
      host: '127.0.0.1',
      protocol: 'http',
      weight: 1,
      costPerGbCents: 30,
      ...body,
    });
    expect(r.status).toBe(201);
    expect((await admin.request('PATCH', `/admin/upstreams/${r.body.upstream.id}`, { enabled: true })).status).toBe(200);
  }
  gateway = createGateway({
    gatewayId: `e2e-${randomUUID().slice(0, 8)}`,
    serverUrl: e2e.server.url,
    internalApiKey: INTERNAL_KEY,
    allowPrivate: true,
    entryPorts: ports,
    meter: { initialLeaseBytes: 256 * 1024, minLeaseBytes: 128 * 1024, emptyRetryMs: 100, reportIntervalMs: 250 },
  });
  await gateway.listen(0, '127.0.0.1');
  target = await startTarget();
  page = await e2e.newPage();
  await signUpAndLogIn(e2e, page, 'Entry Port Tester');
});
afterAll(async () => {
  for (const b of browsers) await b.close();
  await gateway?.close();
  await target?.close();
  await fr?.close();
  await de?.close();
  await e2e?.close();
});

interface Account {
  proxyUserId: string;
  name: string;
  kind: string;
  usedBytes: string;
}
const accountsNow = async () => {
  await gateway.flush();
  return page.evaluate(async () => ((await (await fetch('/api/proxy-accounts')).json()) as { accounts: Account[] }).accounts);
};
const used = async (name: string) => BigInt((await accountsNow()).find((a) => a.name === name)!.usedBytes);

/** A page loaded by a new Chromium whose every request goes through SOCKS5 on `port`, without credentials. */
async function throughSocks(port: number, url: string): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  const browser = await launchSocksChromium(port);
  browsers.push(browser);
  return loadText(browser, url);
}

/** Retries briefly: the gateway's answer for this address and port may be cached for a moment. */
async function loads(port: number): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  let r = await throughSocks(port, `${target.url}/hello`);
  for (let i = 0; i < 20 && !r.ok; i++) {
    await new Promise((res) => setTimeout(res, 250));
    r = await throughSocks(port, `${target.url}/hello`);
  }
  return r;
}

describe('settings: location per port', () => {
  it('sets a port per proxy account and location; Chromium exits through the FR pool as B and the DE pool as C; B’s cap stops B only', async () => {
    const me = await page.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: { id: string } }).user);
    await addCredits(e2e.server, me.id, 1n << 30n);
    for (const [name, capGB] of [
      ['B', 0.01],
      ['C', undefined],
    ] as const) {
      const status = await page.evaluate(
        async (body) =>
          (await fetch('/api/proxy-accounts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status,
        { name, ...(capGB && { capGB }) },
      );
      expect(status).toBe(201);
    }

    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('tab', { name: 'API & proxy' }).click();
    await page.getByRole('heading', { name: 'IP Allow-List' }).waitFor();
    await page.getByRole('button', { name: 'Add 127.0.0.1' }).click();
    await page.getByText('Allow-list saved: 127.0.0.1 added.', { exact: false }).waitFor();
    await page.getByLabel(/Password-less access from these addresses/).click();
    await page.getByText('Allow-list saved: password-less access on.', { exact: false }).waitFor();

    const section = page.getByRole('region', { name: 'Entry ports' });
    await expect.poll(() => section.getByTestId('entry-port-range').innerText()).toBe(`${ports.from}-${ports.to}`);
    const form = section.getByRole('form', { name: 'Set an entry port' });
    // A port outside the range is refused with the server's words, naming the field.
    await form.getByLabel('Port').fill(String(ports.to + 1));
    await form.getByLabel('Location').fill('FR');
    await form.getByRole('button', { name: 'Set port' }).click();
    await page.getByText(`Port ${ports.to + 1} is not an entry port: the entry ports are ${ports.from}-${ports.to}`).waitFor();

    await form.getByLabel('Port').fill(String(ports.from));
    await form.getByLabel('Proxy account').selectOption({ label: 'B' });
    await form.getByLabel('Location').fill('FR');
    await form.getByLabel('Session').selectOption({ label: '45 minutes' });
    await form.getByRole('button', { name: 'Set port' }).click();
    await page.getByText(`Allow-list saved: port ${ports.from} set for 127.0.0.1.`, { exact: false }).waitFor();
    await form.getByLabel('Port').fill(String(ports.to));
    await form.getByLabel('Proxy account').selectOption({ label: 'C' });
    await form.getByLabel('Location').fill('DE');
    await form.getByLabel('Session').selectOption({ label: 'Rotating (new IP per connection)' });
    await form.getByRole('button', { name: 'Set port' }).click();
    await page.getByText(`Allow-list saved: port ${ports.to} set for 127.0.0.1.`, { exact: false }).waitFor();
    const profiles = section.getByRole('list', { name: 'Entry port profiles' }).locator('li');
    await expect
      .poll(() => profiles.allInnerTexts())
      .toEqual([
        expect.stringContaining(`port ${ports.from}: B, FR, 45 minutes`),
        expect.stringContaining(`port ${ports.to}: C, DE, Rotating (new IP per connection)`),
      ]);
    await screenshots(page, 'settings-entry-ports');

    // Chromium on B's port: through the FR provider, billed to B.
    expect(await loads(ports.from)).toEqual({ ok: true, text: 'hello from target' });
    expect(fr.seen.length).toBeGreaterThan(0);
    expect(fr.seen.every((s) => /^fr-FR-sess-\w+:fr-secret$/.test(s.auth))).toBe(true);
    expect(de.seen).toEqual([]);
    expect(await used('B')).toBeGreaterThan(0n);
    // On C's port: through the DE provider, billed to C.
    const cBefore = await used('C');
    expect(await loads(ports.to)).toEqual({ ok: true, text: 'hello from target' });
    expect(de.seen.length).toBeGreaterThan(0);
    expect(de.seen.every((s) => s.auth === 'de-DE:de-secret')).toBe(true);
    expect(await used('C')).toBeGreaterThan(cBefore);

    // B's cap (0.01 GB) reached through its port: B's port stops, C's goes on.
    for (let i = 0; i < 20; i++) {
      const r = await curl(['-x', `socks5h://127.0.0.1:${ports.from}`, `${target.url}/download?bytes=${4 * MiB}`]);
      if (r.code !== 0) break;
    }
    const refused = await throughSocks(ports.from, `${target.url}/hello`);
    expect(refused.ok).toBe(false);
    expect(await loads(ports.to)).toEqual({ ok: true, text: 'hello from target' });
  });
});
