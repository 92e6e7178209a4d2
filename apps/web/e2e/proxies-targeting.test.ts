/**
 * The generator's ZIP / postal code and ASN fields, shown only when an enabled pool serving the
 * chosen country carries them, and its "Keep the same IP or fail" checkbox for sticky durations:
 * what is entered goes into every generated username (`~z`, `~a`, `h`), bad input is refused
 * naming the field, and the checkbox on a rotating line is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { parseProxyUsername } from '@proxyhub/core';
import { adminClient, type HttpClient } from '@proxyhub/testing';
import { fieldErrors, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let page: Page;
let admin: HttpClient;
let proxyUserId: string;

beforeAll(async () => {
  e2e = await startE2E();
  admin = await adminClient(e2e.server);
  page = await e2e.newPage();
  await signUpAndLogIn(e2e, page, 'Targeting Tester');
  proxyUserId = await page.evaluate(async () => {
    const r = await fetch('/trpc/auth.me', { credentials: 'include' });
    return ((await r.json()) as { result: { data: { json: { proxyUserId: string } } } }).result.data.json.proxyUserId;
  });
});
afterAll(async () => {
  await e2e?.close();
});

const zipField = () => page.getByLabel('ZIP / postal code');
const asnField = () => page.getByLabel('ASN', { exact: true });
const generate = () => page.getByRole('button', { name: 'Generate Proxies' }).click();
const lines = () => page.getByTestId('proxy-output').getByRole('listitem').allInnerTexts();

describe('ZIP, ASN and hard sticky in the generator', () => {
  it('shows no ZIP or ASN field while no pool carries them; the checkbox for sticky durations only', async () => {
    await page.goto('/proxies');
    await page.getByLabel('Keep the same IP or fail').waitFor();
    expect(await zipField().count()).toBe(0);
    expect(await asnField().count()).toBe(0);
    await page.getByLabel('Session Duration').selectOption('0');
    expect(await page.getByLabel('Keep the same IP or fail').count()).toBe(0);
    await page.getByLabel('Session Duration').selectOption('60');
  });

  it('with a US pool carrying {zip} and {asn}: the fields, their checks, and lines that carry them in every format', async () => {
    const r = await admin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', {
      name: 'ZIP and ASN',
      protocol: 'http',
      host: 'provider.example.net',
      port: 8000,
      usernameTemplate: 'u-{country}[-zip-{zip}][-asn-{asn}][-sid-{sid}][-hard-{hard}]',
      password: 'pw',
      countries: ['US'],
    });
    expect(r.status).toBe(201);
    expect((await admin.request('PATCH', `/admin/upstreams/${r.body.upstream.id}`, { enabled: true })).status).toBe(200);
    await page.goto('/proxies');
    await zipField().waitFor();
    await asnField().waitFor();

    // Bad input: refused, naming the field; nothing generated.
    await zipField().fill('9'.repeat(40));
    await asnField().fill('AS7922');
    await generate();
    expect(await fieldErrors(page)).toEqual(['ZIP / postal code: 3 to 10 letters and digits', 'ASN: digits only, e.g. 7922']);
    expect(await lines()).toEqual([]);

    // A rotating line cannot keep its IP.
    await zipField().fill('90012');
    await asnField().fill('7922');
    await page.getByLabel('Keep the same IP or fail').check();
    await page.getByLabel('Session Duration').selectOption('0');
    await generate();
    await page.getByText('Keep the same IP or fail needs a sticky duration').waitFor();
    expect(await lines()).toEqual([]);

    await page.getByLabel('Session Duration').selectOption('45');
    await page.getByLabel('Number of Proxies').fill('3');
    await generate();
    await expect.poll(async () => (await lines()).length).toBe(3);
    for (const line of await lines()) {
      const user = line.split(':')[2]!;
      expect(user).toMatch(new RegExp(`^${proxyUserId}_US~z90012~a7922_45h_[A-Z0-9]{8}$`));
      expect(parseProxyUsername(user)).toMatchObject({
        ok: true,
        value: { location: { country: 'US', zip: '90012', asn: '7922' }, durationMinutes: 45, hard: true },
      });
    }
    expect(await page.getByTestId('generated-count').innerText()).toBe('3 proxies generated · United States (ZIP 90012, AS7922, same IP or fail)');
    // Every format and the snippets carry the same username.
    const first = (await lines())[0]!.split(':')[2]!;
    for (const format of ['http-url', 'socks5-url', 'user:pass@host:port']) {
      await page.getByLabel('Format').selectOption(format);
      await expect.poll(async () => (await lines())[0]).toContain(first);
    }
    expect(await page.locator('body').innerText()).toContain(first);
    await screenshots(page, 'proxies-zip-asn-hard');

    // Another country the pool does not serve: no fields (no enabled pool for it carries them).
    await admin.request('DELETE', `/admin/upstreams/${r.body.upstream.id}`);
    await page.goto('/proxies');
    await page.getByLabel('Keep the same IP or fail').waitFor();
    expect(await zipField().count()).toBe(0);
  });
});
