import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { PROXY_FORMATS, PROXY_NOTICE_MS, parseProxyUsername, type ProxyFormat } from '@proxyhub/core';
import { VIEWPORTS, fieldErrors, holdCalls, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
let page: Page;
let me: { proxyUserId: string; proxyPassword: string };

beforeAll(async () => {
  e2e = await startE2E();
  page = await e2e.newPage();
  await signUpAndLogIn(e2e, page, 'Proxy Tester');
  me = await page.evaluate(async () => {
    // The session call as the page makes it (superjson envelope), to learn the proxy credentials.
    const r = await fetch('/trpc/auth.me', { credentials: 'include' });
    const body = (await r.json()) as { result: { data: { json: { proxyUserId: string; proxyPassword: string } } } };
    return body.result.data.json;
  });
});
afterAll(async () => {
  await e2e?.close();
});

const output = () => page.getByTestId('proxy-output');
/** The rows in the DOM: the whole list while it fits the view (up to ~19 lines), a window of a long one. */
const rows = () => output().getByRole('listitem');
const lines = () => rows().allInnerTexts();
/** Every line, through Copy All (the clipboard is emptied first, so the text read is this click's). */
async function copiedLines(on: Page = page): Promise<string[]> {
  await on.evaluate(() => navigator.clipboard.writeText(''));
  const button = on.getByRole('button', { name: 'Copy all proxies' });
  await button.click();
  // Checked at once: the button says so for 2 s only.
  await button.filter({ hasText: 'Copied!' }).waitFor();
  await expect.poll(() => on.evaluate(() => navigator.clipboard.readText())).not.toBe('');
  return (await on.evaluate(() => navigator.clipboard.readText())).split('\n');
}

/** Splits a line of each format into its four parts (the URL formats as URLs, the way tools read them). */
function parseLine(format: ProxyFormat, line: string) {
  if (format === 'http-url' || format === 'socks5-url') {
    const url = new URL(line);
    expect(url.protocol).toBe(format === 'http-url' ? 'http:' : 'socks5:');
    expect(line).toBe(`${url.protocol}//${url.username}:${url.password}@${url.hostname}:${url.port}`);
    return { host: url.hostname, port: url.port, user: url.username, pass: url.password };
  }
  const m = {
    'host:port:user:pass': /^([^:@]+):(\d+):([^:@]+):([^:@]+)$/,
    'host:port@user:pass': /^([^:@]+):(\d+)@([^:@]+):([^:@]+)$/,
    'user:pass:host:port': /^([^:@]+):([^:@]+):([^:@]+):(\d+)$/,
    'user:pass@host:port': /^([^:@]+):([^:@]+)@([^:@]+):(\d+)$/,
  }[format].exec(line);
  if (!m) throw new Error(`line does not match ${format}: ${line}`);
  const [, a, b, c, d] = m as unknown as [string, string, string, string, string];
  return format.startsWith('host') ? { host: a, port: b, user: c, pass: d } : { user: a, pass: b, host: c, port: d };
}

function checkLines(all: string[], format: ProxyFormat, expected: { location: string; duration: number; count: number }) {
  expect(all).toHaveLength(expected.count);
  const tokens = new Set<string>();
  for (const line of all) {
    const p = parseLine(format, line);
    // Served from localhost: the endpoint is localhost:3001 (spec section 9).
    expect(p.host).toBe('localhost');
    expect(p.port).toBe('3001');
    expect(p.pass).toBe(me.proxyPassword);
    const parsed = parseProxyUsername(p.user);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(p.user).toMatch(new RegExp(`^${me.proxyUserId}_${expected.location}_${expected.duration}_[A-Z0-9]{8}$`));
    tokens.add(parsed.value.token);
  }
  expect(tokens.size).toBe(expected.count);
}

async function selectFormat(format: ProxyFormat) {
  await page.getByLabel('Format').selectOption(format);
}

describe('proxy generator', () => {
  it('shows the form with the defaults of the spec', async () => {
    await page.getByRole('link', { name: 'Proxies', exact: true }).click();
    await page.getByRole('heading', { name: 'Generate Proxies' }).waitFor();
    await expect.poll(() => page.getByLabel('Country').inputValue()).toBe('US');
    expect(await page.getByLabel('Session Duration').inputValue()).toBe('60');
    expect(await page.getByLabel('Number of Proxies').inputValue()).toBe('10');
    expect(await page.getByLabel('Format').inputValue()).toBe('host:port:user:pass');
    const durations = await page
      .getByLabel('Session Duration')
      .locator('option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(durations).toEqual(['0', '5', '10', '45', '60', '90', '1440', '4320', '10080']);
    // Rotating comes first, with its own label.
    expect((await page.getByLabel('Session Duration').locator('option').allInnerTexts())[0]).toBe('Rotating (new IP per connection)');
    const formats = await page.getByLabel('Format').locator('option').allInnerTexts();
    expect(formats).toEqual(PROXY_FORMATS.map((f) => f.label));
    expect(await page.getByTestId('credits').innerText()).toContain('0.00 GB');
    // The hint names the shortest and the longest option offered.
    expect(await page.locator('body').innerText()).toContain('Sticky session length: 5 minutes to 7 days.');
    expect(formats).toContain('http://username:password@hostname:port');
    expect(formats).toContain('socks5://username:password@hostname:port');
    expect(await page.getByTestId('endpoint').innerText()).toContain('Endpoint localhost:3001');
    await screenshots(page, 'proxies-empty');
  });

  it('count validation messages', async () => {
    const count = page.getByLabel('Number of Proxies');
    const generate = page.getByRole('button', { name: 'Generate Proxies' });
    await count.fill('');
    await generate.click();
    expect(await fieldErrors(page)).toEqual(['Count is required']);
    await count.fill('0');
    expect(await fieldErrors(page)).toEqual([]);
    await generate.click();
    expect(await fieldErrors(page)).toEqual(['Count must be at least 1']);
    await count.fill('10001');
    await generate.click();
    expect(await fieldErrors(page)).toEqual(['Count must be at most 10000']);
    await count.fill('2.5');
    await generate.click();
    expect(await fieldErrors(page)).toEqual(['Count must be a whole number']);
    expect(await rows().count()).toBe(0);
    expect(await output().innerText()).toBe('Your proxies will appear here, one per line.');
  });

  it('generates 10 proxies in every format, with the 3-second notice', async () => {
    await page.getByLabel('Number of Proxies').fill('10');
    // The notice stays 3 s from when it shows, which is after the click (timed from the click: the
    // test may notice the notice late on a busy machine).
    const clickedAt = Date.now();
    await page.getByRole('button', { name: 'Generate Proxies' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'Successfully generated 10 proxies' });
    await notice.waitFor();
    expect(await page.getByTestId('generated-count').innerText()).toBe('10 proxies generated · United States');
    // The notice sits on its own line under the button: it covers no part of the list, at either width.
    for (const size of [VIEWPORTS.desktop, VIEWPORTS.phone]) {
      await page.setViewportSize(size);
      await output().scrollIntoViewIfNeeded();
      const [n, list] = [await notice.boundingBox(), await output().boundingBox()];
      if (!n || !list) throw new Error('notice or list not laid out');
      expect(n.y + n.height <= list.y || list.y + list.height <= n.y).toBe(true);
      expect(await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.closest('#proxy-output')?.id, { x: list.x + 20, y: list.y + 20 })).toBe(
        'proxy-output',
      );
    }
    await page.setViewportSize(VIEWPORTS.desktop);
    const first = await lines();
    checkLines(first, 'host:port:user:pass', { location: 'US', duration: 60, count: 10 });
    // Copy All holds the same lines as the list shows.
    expect(await copiedLines()).toEqual(first);
    await screenshots(page, 'proxies-10');
    for (const f of PROXY_FORMATS) {
      await selectFormat(f.id);
      const all = await lines();
      checkLines(all, f.id, { location: 'US', duration: 60, count: 10 });
      // Same credentials, only the layout changes.
      expect(all.map((l) => parseLine(f.id, l).user)).toEqual(first.map((l) => parseLine('host:port:user:pass', l).user));
      // Only a SOCKS5 list says that browsers cannot send its password.
      expect(await page.getByTestId('socks-note').count()).toBe(f.id === 'socks5-url' ? 1 : 0);
      if (f.id === 'socks5-url') {
        expect(await page.getByTestId('socks-note').innerText()).toContain('Browsers cannot send a SOCKS5 username and password');
        await screenshots(page, 'proxies-socks5');
      }
    }
    await notice.waitFor({ state: 'detached', timeout: 6000 });
    expect(Date.now() - clickedAt).toBeGreaterThanOrEqual(PROXY_NOTICE_MS);
    await selectFormat('host:port:user:pass');
  });

  it('shows the first line as curl, Python, Node and Playwright code, in the selected format', async () => {
    const [user, pass] = (await lines())[0]!.split(':').slice(2);
    const snippet = page.getByTestId('snippet');
    expect(await snippet.innerText()).toContain(`curl -x 'http://${user}:${pass}@`);
    await selectFormat('socks5-url');
    await expect.poll(() => snippet.innerText()).toContain(`curl -x 'socks5h://${user}:${pass}@`);
    await page.getByRole('tab', { name: 'Python' }).click();
    expect(await snippet.innerText()).toContain(`proxy = "socks5h://${user}:${pass}@`);
    expect(await snippet.innerText()).toContain('requests[socks]');
    await page.getByRole('tab', { name: 'Node' }).click();
    expect(await snippet.innerText()).toContain("import { fetch, ProxyAgent } from 'undici';");
    expect(await snippet.innerText()).toContain(`Buffer.from("${user}:${pass}")`);
    await page.getByRole('tab', { name: 'Playwright' }).click();
    expect(await snippet.innerText()).toContain(`username: "${user}", password: "${pass}"`);
    await page.getByRole('button', { name: 'Copy code' }).click();
    const code = await snippet.innerText();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(code);
    await page.getByRole('tab', { name: 'curl' }).click();
    await selectFormat('host:port:user:pass');
  });

  it('state, a searched city and duration go into the username; the count line names the place', async () => {
    const state = page.getByLabel('State');
    await expect.poll(() => state.isEnabled()).toBe(true);
    await state.selectOption({ label: 'California' });
    const city = page.getByLabel('City');
    await expect.poll(() => city.isEnabled()).toBe(true);
    // Thousands of cities: the picker is a text field with the list as suggestions, searched by typing.
    const listed = await page.getByTestId('city-options').locator('option').count();
    expect(listed).toBeGreaterThan(1000);
    expect(await city.getAttribute('placeholder')).toContain(`type to search ${listed.toLocaleString('en-US')}`);
    await city.fill('Nowhere Town');
    await page.getByRole('button', { name: 'Generate Proxies' }).click();
    expect(await fieldErrors(page)).toEqual(['Choose a city from the list, or leave it empty for any city']);
    await city.fill('los angeles');
    expect(await fieldErrors(page)).toEqual([]);
    await page.getByLabel('Session Duration').selectOption('1440');
    await page.getByLabel('Number of Proxies').fill('5');
    await page.getByRole('button', { name: 'Generate Proxies' }).click();
    await expect.poll(async () => (await lines()).length).toBe(5);
    checkLines(await lines(), 'host:port:user:pass', { location: 'US-CA-LOSANGELES', duration: 1440, count: 5 });
    expect(await page.getByTestId('generated-count').innerText()).toBe('5 proxies generated · United States / California / Los Angeles');
    await screenshots(page, 'proxies-location');

    // A state alone.
    await city.fill('');
    await page.getByRole('button', { name: 'Generate Proxies' }).click();
    await page.getByTestId('generated-count').filter({ hasText: '5 proxies generated · United States / California' }).waitFor();
    checkLines(await lines(), 'host:port:user:pass', { location: 'US-CA', duration: 1440, count: 5 });

    // Changing the country resets state and city.
    await city.fill('Los Angeles');
    await page.getByLabel('Country').selectOption('GB');
    expect(await state.inputValue()).toBe('');
    expect(await city.inputValue()).toBe('');
    await page.getByLabel('Country').selectOption('US');
    await page.getByLabel('Session Duration').selectOption('60');
  });

  it('builds rotating lines (duration 0) when Rotating is chosen', async () => {
    await page.getByLabel('Session Duration').selectOption({ label: 'Rotating (new IP per connection)' });
    await page.getByLabel('Number of Proxies').fill('4');
    await page.getByRole('button', { name: 'Generate Proxies' }).click();
    await page.getByTestId('generated-count').filter({ hasText: '4 proxies generated · United States' }).waitFor();
    checkLines(await lines(), 'host:port:user:pass', { location: 'US', duration: 0, count: 4 });
    await page.getByLabel('Session Duration').selectOption('60');
  });

  it('generates 10,000 proxies without freezing, in every format; copy and download', async () => {
    await page.getByLabel('Number of Proxies').fill('10000');
    const started = Date.now();
    await page.getByRole('button', { name: 'Generate Proxies' }).click();
    await page.getByTestId('generated-count').filter({ hasText: '10,000 proxies generated' }).waitFor();
    const elapsed = Date.now() - started;
    const measured = await page.evaluate(() => document.documentElement.dataset.lastGenerateMs);
    console.log(`10,000 proxies: ${measured} ms generate+render in the page, ${elapsed} ms click-to-visible`);
    expect(elapsed).toBeLessThan(5000);
    // The page stays responsive: a frame comes promptly after the list is shown.
    const frameMs = await page.evaluate(
      () =>
        new Promise<number>((r) => {
          const t = performance.now();
          requestAnimationFrame(() => r(performance.now() - t));
        }),
    );
    expect(frameMs).toBeLessThan(1000);
    // Every line of every format, through Copy All: the list on screen holds only the lines in view.
    let users: string[] = [];
    for (const f of PROXY_FORMATS) {
      await selectFormat(f.id);
      const all = await copiedLines();
      checkLines(all, f.id, { location: 'US', duration: 60, count: 10_000 });
      const theseUsers = all.map((l) => parseLine(f.id, l).user);
      if (users.length) expect(theseUsers).toEqual(users);
      users = theseUsers;
      // The rows on screen are the first lines of the same text.
      const shown = await lines();
      expect(shown.length).toBeGreaterThan(0);
      expect(shown).toEqual(all.slice(0, shown.length));
    }
    await selectFormat('user:pass@host:port');
    await screenshots(page, 'proxies-10000');

    const clip = await copiedLines();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download .txt' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^proxies-US-10000\.txt$/);
    const file = readFileSync(await download.path(), 'utf8');
    expect(file.endsWith('\n')).toBe(true);
    checkLines(file.trimEnd().split('\n'), 'user:pass@host:port', { location: 'US', duration: 60, count: 10_000 });
    expect(file.trimEnd().split('\n')).toEqual(clip);
  });

  it('keeps only a window of the 10,000 rows in the DOM; scrolling (mouse or keyboard) reaches the last line', async () => {
    const all = await copiedLines();
    expect(all).toHaveLength(10_000);
    const windowRows = await rows().count();
    expect(windowRows).toBeGreaterThan(10);
    expect(windowRows).toBeLessThan(200);
    expect(await rows().first().getAttribute('aria-setsize')).toBe('10000');
    expect(await rows().first().innerText()).toBe(all[0]);

    // Scrolled to the end: the last line is in the DOM, and still only a window of rows.
    await output().evaluate((el) => (el.scrollTop = el.scrollHeight));
    const last = rows().filter({ hasText: all.at(-1)! });
    await last.waitFor();
    expect(await last.getAttribute('aria-posinset')).toBe('10000');
    expect(await rows().count()).toBeLessThan(200);
    // The last line is on screen, inside the list's box.
    const [box, lastBox] = [await output().boundingBox(), await last.boundingBox()];
    if (!box || !lastBox) throw new Error('list or row not laid out');
    expect(lastBox.y).toBeGreaterThanOrEqual(box.y);
    expect(lastBox.y + lastBox.height).toBeLessThanOrEqual(box.y + box.height);

    // Keyboard: the list takes focus; Home and End scroll it.
    await output().focus();
    await page.keyboard.press('Home');
    await rows().filter({ hasText: all[0]! }).waitFor();
    await page.keyboard.press('End');
    await last.waitFor();
    // A row is text: it can be selected like any text.
    const selected = await last.evaluate((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      const sel = window.getSelection()!;
      sel.removeAllRanges();
      sel.addRange(range);
      return sel.toString();
    });
    expect(selected).toBe(all.at(-1));
  });

  it('waits for the gateway endpoint before it generates (never a guessed localhost:3001)', async () => {
    const fresh = await e2e.newPage();
    // The same account in a second page: its session cookie.
    await fresh.context().addCookies(await page.context().cookies());
    const release = await holdCalls(fresh, 'gateway.endpoint');
    await fresh.goto('/proxies');
    await fresh.getByRole('heading', { name: 'Generate Proxies' }).waitFor();
    const generate = fresh.getByRole('button', { name: 'Generate Proxies' });
    expect(await generate.isDisabled()).toBe(true);
    expect(await fresh.getByTestId('endpoint').innerText()).toBe('Loading the proxy endpoint...');
    await fresh.locator('form[aria-label="Generate proxies"]').evaluate((f) => (f as HTMLFormElement).requestSubmit());
    expect(await fresh.getByTestId('proxy-output').getByRole('listitem').count()).toBe(0);
    release();
    await expect.poll(() => generate.isEnabled()).toBe(true);
    expect(await fresh.getByTestId('endpoint').innerText()).toContain('Endpoint localhost:3001');
    await generate.click();
    await fresh.getByTestId('generated-count').filter({ hasText: '10 proxies generated' }).waitFor();
    expect(await fresh.getByTestId('proxy-output').getByRole('listitem').first().innerText()).toMatch(/^localhost:3001:/);
    await fresh.close();
  });
});
