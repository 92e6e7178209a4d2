/**
 * The status page's quality board (issue 48, item 4) in the browser: a row per measured country
 * with its 24-hour success, connect times and exit matches, a 90-day strip, degraded countries
 * marked; the subscribe form checks the address with the server's schema, and the mailed link
 * opens the page with a button that confirms the subscription once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qualityIncidents, qualityProbes } from '@proxyhub/db';
import { screenshots, startE2E, type E2E } from './harness';

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E({ quality: { cacheMs: 0 } });
});
afterAll(async () => {
  await e2e?.close();
});

const DAY = 86_400_000;
const todayStart = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
const dayAt = (i: number) => new Date(todayStart - i * DAY + 3_600_000);

describe('/status quality board', () => {
  it('shows each country measured, its 90-day strip, and a degraded one marked', async () => {
    // History only the prober writes: US passed every probe for 5 days; DE fails half today and is degraded.
    const rows = [5, 4, 3, 2, 1].map((i) => ({ country: 'US', upstreamId: null, at: dayAt(i), ok: true, connectMs: 100 + i, exitCountry: 'US' }));
    const now = Date.now();
    rows.push(
      { country: 'US', upstreamId: null, at: new Date(now - 60_000), ok: true, connectMs: 120, exitCountry: 'US' },
      { country: 'DE', upstreamId: null, at: new Date(now - 120_000), ok: true, connectMs: 300, exitCountry: 'NL' },
      { country: 'DE', upstreamId: null, at: new Date(now - 60_000), ok: false, connectMs: null as unknown as number, exitCountry: null as unknown as string },
    );
    await e2e.server.deps.db.insert(qualityProbes).values(rows);
    await e2e.server.deps.db.insert(qualityIncidents).values({ country: 'DE', openedAt: new Date(now - 60_000) });

    const page = await e2e.newPage();
    await page.goto('/status');
    const table = page.getByTestId('quality-table');
    await table.waitFor();
    const us = table.locator('tr[data-country="US"]');
    const de = table.locator('tr[data-country="DE"]');
    expect(await us.getAttribute('data-degraded')).toBe('false');
    expect(await de.getAttribute('data-degraded')).toBe('true');
    expect(await de.locator('th').textContent()).toContain('Degraded');
    const usCells = await us.locator('td').allInnerTexts();
    expect(usCells).toEqual(['100.0%', '120 ms', '120 ms', '100.0%']);
    const deCells = await de.locator('td').allInnerTexts();
    expect(deCells).toEqual(['50.0%', '300 ms', '300 ms', '0.0%']);
    const strip = table.locator('tr[data-strip="US"] li');
    expect(await strip.count()).toBe(90);
    expect(await strip.nth(89 - 3).getAttribute('aria-label')).toBe(`${dayAt(3).toISOString().slice(0, 10)}: 100.0% of probes passed`);
    expect(await strip.nth(89 - 3).getAttribute('class')).toContain('uptime-good');
    expect(await strip.nth(0).getAttribute('aria-label')).toMatch(/: no probes$/);
    expect(await table.locator('tr[data-strip="DE"] li').nth(89).getAttribute('class')).toContain('uptime-bad');
    await screenshots(page, 'status-quality');
  });

  it('subscribes by the mailed link: the form checks the address, the link confirms once', async () => {
    const page = await e2e.newPage();
    await page.goto('/status');
    const form = page.getByRole('form', { name: 'Subscribe to status mails' });
    await form.getByLabel('Email').fill('not-an-address');
    await form.getByRole('button', { name: 'Subscribe' }).click();
    await form.getByText('Please enter a valid email address').waitFor();
    await form.getByLabel('Email').fill('status-reader@example.com');
    await form.getByRole('button', { name: 'Subscribe' }).click();
    await page.getByText('Check your inbox: follow the link we sent to confirm the subscription.').waitFor();

    await expect.poll(() => e2e.server.mails('status-reader@example.com').length).toBe(1);
    const link = /https?:\/\/\S+\/status\?confirm=[A-Za-z0-9_-]+/.exec(e2e.server.mails('status-reader@example.com')[0]!.text)![0];
    await page.goto(new URL(link).pathname + new URL(link).search);
    await page.getByRole('button', { name: 'Confirm subscription' }).click();
    await page.getByText('Subscribed: status-reader@example.com will get a mail when a country becomes degraded and when it recovers.').waitFor();
    // The same link again: spent.
    await page.reload();
    await page.getByRole('button', { name: 'Confirm subscription' }).click();
    await page.getByText('This link is invalid or expired').waitFor();
  });
});
