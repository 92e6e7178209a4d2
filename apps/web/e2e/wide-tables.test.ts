/**
 * Tables that keep every column at 1366x800 and 1280x800: a wide table scrolls inside its card (the
 * page never scrolls sideways), its first column stays at the left while it scrolls, and the last
 * column (the actions) comes into view. Billing, Connections and the admin tabs with tables. The
 * Connections page's statements link leads to the guide, whose verifier checks a real statement.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { addCredits } from '@proxyhub/testing';
import { adminLogIn, INTERNAL_KEY, recordBase, screenshots, startE2EWithUser, type E2E, type SessionUser } from './harness';

const SIZES = [
  { width: 1366, height: 800 },
  { width: 1280, height: 800 },
] as const;

let e2e: E2E;
let page: Page;
let user: SessionUser;

beforeAll(async () => {
  ({ e2e, page, user } = await startE2EWithUser('Wide Tables Customer With A Long Name'));
  await addCredits(e2e.server, user.id, 1n << 30n);
  // A connection record (Connections and its statement), a waiting crypto order (Billing, Payments),
  // codes (Codes) and an upstream (Upstreams): every table below has rows.
  const now = Date.now();
  await e2e.internal.gateway.report.mutate({
    gatewayId: 'e2e-gw-wide',
    seq: 1,
    items: [],
    connections: [
      {
        ...(await recordBase(e2e, user)),
        id: randomUUID(),
        startedAt: now - 2000,
        endedAt: now - 1000,
        protocol: 'connect',
        target: 'a-rather-long-target-name.example.com:443',
        outcome: 'target_unreachable',
        reason: 'connect ETIMEDOUT',
      },
    ],
  });
  await page.goto('/topup');
  await page.getByRole('button', { name: /^Pay \$10\.80 with Crypto$/ }).click();
  await page.waitForURL(/\/sandbox\/pay\//);
  const minted = await fetch(`${e2e.server.url}/admin/codes/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${INTERNAL_KEY}` },
    body: JSON.stringify({ creditsGB: 1, quantity: 2, expiresAt: null }),
  });
  expect(minted.status).toBe(200);
  await e2e.internal.admin.createUpstream.mutate({
    name: 'Wide pool with a long name',
    protocol: 'http',
    host: 'pool.provider-with-a-long-host-name.example.net',
    port: 8000,
    password: 'pool-secret',
    countries: ['US', 'DE', 'GB', 'FR'],
    costPerGbCents: 250,
  });
});
afterAll(() => e2e?.close());

/**
 * The table's layout scrolled to its start and to its end: whether the page is wider than the
 * window, whether the table scrolls inside its wrapper, where the first column's cells sit against
 * the wrapper's inner left edge, and whether the last head cell is inside the wrapper at the end.
 */
function tableLayout(p: Page, testId: string) {
  return p.getByTestId(testId).evaluate((table) => {
    const wrap = table.closest('.table-wrap');
    if (!(wrap instanceof HTMLElement)) throw new Error('table outside .table-wrap');
    const left = () => wrap.getBoundingClientRect().left + wrap.clientLeft;
    const firstCells = [...table.querySelectorAll('tr')].flatMap((tr) => (tr.cells[0]?.colSpan === 1 ? [tr.cells[0]] : []));
    const offsets = () => firstCells.map((c) => Math.round(c.getBoundingClientRect().left - left()));
    const heads = table.querySelectorAll('thead th');
    const last = heads[heads.length - 1];
    if (!last) throw new Error('table without a head');
    wrap.scrollLeft = 0;
    const atStart = offsets();
    const lastHiddenAtStart = last.getBoundingClientRect().right > left() + wrap.clientWidth + 1;
    wrap.scrollLeft = wrap.scrollWidth;
    const atEnd = offsets();
    const box = last.getBoundingClientRect();
    const lastInView = box.left >= left() - 1 && box.right <= left() + wrap.clientWidth + 1;
    wrap.scrollLeft = 0;
    return {
      pageFits: document.documentElement.scrollWidth <= window.innerWidth,
      scrolls: wrap.scrollWidth > wrap.clientWidth,
      lastHiddenAtStart,
      lastInView,
      rows: firstCells.length,
      firstColumnAtLeft: [...atStart, ...atEnd].every((x) => x === 0),
    };
  });
}

/** Every column reachable: the page fits, the last column is in view once the table is scrolled, the first stays put. */
async function expectReadable(p: Page, testId: string, opts: { wide?: boolean } = {}) {
  await expect.poll(async () => (await tableLayout(p, testId)).rows, { timeout: 15_000 }).toBeGreaterThan(1);
  const layout = await tableLayout(p, testId);
  const size = p.viewportSize();
  expect({ testId, size, ...layout }).toMatchObject({
    testId,
    pageFits: true,
    lastInView: true,
    firstColumnAtLeft: true,
    // A table wider than its card scrolls: what is hidden at the start is reached by scrolling.
    scrolls: layout.lastHiddenAtStart || opts.wide === true,
  });
  if (opts.wide) expect({ testId, size, scrolls: layout.scrolls }).toEqual({ testId, size, scrolls: true });
}

describe('wide tables at 1366x800 and 1280x800', () => {
  it('Billing and Connections: the page fits, tables scroll inside their card with the first column held', async () => {
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.goto('/billing');
      await expectReadable(page, 'billing-table');
      await page.goto('/connections');
      await expectReadable(page, 'connections-table', { wide: true });
      await expectReadable(page, 'statements-table');
    }
    await screenshots(page, 'connections-wide-table');
  });

  it('admin tabs: Users, Codes, Payments, Upstreams, Audit log, Admins', async () => {
    const admin = await e2e.newPage();
    await adminLogIn(admin);
    const tabs = [
      { tab: /^Users/, table: 'users-table' },
      { tab: 'Codes', table: 'codes-table' },
      { tab: 'Payments', table: 'payments-table' },
      { tab: 'Upstreams', table: 'upstreams-table', wide: true },
      { tab: 'Audit log', table: 'audit-table' },
      { tab: 'Admins', table: 'admins-table' },
    ];
    for (const size of SIZES) {
      await admin.setViewportSize(size);
      for (const t of tabs) {
        await admin.getByRole('tab', { name: t.tab, exact: typeof t.tab === 'string' }).click();
        await expectReadable(admin, t.table, { wide: t.wide });
      }
    }
    // The upstream row's actions are reached by scrolling its table; the name stays beside them.
    await admin.getByRole('tab', { name: 'Upstreams', exact: true }).click();
    const row = admin.getByTestId('upstreams-table').locator('tbody tr').first();
    const edit = row.getByRole('button', { name: 'Edit', exact: true });
    await edit.scrollIntoViewIfNeeded();
    const [name, button] = await Promise.all([row.locator('td').first().boundingBox(), edit.boundingBox()]);
    expect(button!.x + button!.width).toBeLessThanOrEqual(1280);
    expect(name!.x).toBeLessThan(button!.x);
    await screenshots(admin, 'admin-upstreams-wide-table');
    await admin.close();
  });
});

describe('statements guide', () => {
  it('the Connections page links to a guide whose verifier checks the statement the page offers', async () => {
    await page.setViewportSize(SIZES[0]);
    await page.goto('/connections');
    const row = page.getByTestId('statement-row').first();
    await row.waitFor({ timeout: 15_000 });
    const href = async (name: string) => (await row.getByRole('link', { name }).getAttribute('href')) ?? '';
    const [json, csv] = [await href('Statement'), await href('Connections CSV')];
    const statement = decodeURIComponent(json.slice(json.indexOf(',') + 1));
    const csvText = await page.evaluate(async (href) => (await fetch(href)).text(), csv);

    await page.getByRole('link', { name: 'how to check a statement' }).click();
    await page.waitForURL('**/statements');
    await page.getByRole('heading', { name: 'Checking a signed statement', level: 1 }).waitFor();
    const guide = await page.getByTestId('statements-guide').innerText();
    for (const words of ['What is signed', 'canonical JSON', 'Ed25519', 'connectionsDigest', 'previous'])
      expect({ words, found: guide.includes(words) }).toEqual({ words, found: true });
    expect(await page.getByRole('link', { name: '/api/statements/key' }).getAttribute('href')).toBe('/api/statements/key');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshots(page, 'statements-guide');

    // The verifier as the page prints it, run with Node on the downloads: OK, and FAIL once a byte changes.
    const dir = mkdtempSync(join(tmpdir(), 'statement-'));
    writeFileSync(join(dir, 'verify-statement.mjs'), await page.getByTestId('statement-verifier').innerText());
    writeFileSync(join(dir, 'statement.json'), statement);
    writeFileSync(join(dir, 'connections.csv'), csvText);
    writeFileSync(
      join(dir, 'changed.json'),
      statement.replace(/"billedBytes":"(\d+)"/, (_m, n: string) => `"billedBytes":"${BigInt(n) + 1n}"`),
    );
    writeFileSync(join(dir, 'changed.csv'), `${csvText}x`);
    const run = async (...args: string[]) => (await promisify(execFile)(process.execPath, ['verify-statement.mjs', ...args], { cwd: dir })).stdout;
    expect(await run('statement.json', 'connections.csv')).toBe('signature OK\nconnections OK\n');
    expect(await run('changed.json', 'changed.csv')).toBe('signature FAIL\nconnections FAIL\n');
  });
});
