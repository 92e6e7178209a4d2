import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { gatewayTraffic, recordBase, startE2EWithUser, type E2E, type SessionUser } from './harness';

let e2e: E2E;
let page: Page;
let user: SessionUser;

beforeAll(async () => ({ e2e, page, user } = await startE2EWithUser('Connection Viewer')));
afterAll(() => e2e?.close());

/** What the records of the user's main account share, as a gateway reports them (nothing billed). */
const baseRecord = () => recordBase(e2e, user);

describe('connection log in the app', () => {
  it('the Connections page lists and filters what the gateway reported; the usage panel counts outcomes with a hint, and success and connect time by target and country', async () => {
    const gw = e2e.internal.gateway;
    const now = Date.now();
    const base = await baseRecord();
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
        {
          ...base,
          id: randomUUID(),
          startedAt: now - 1000,
          endedAt: now - 900,
          protocol: 'socks5',
          target: 'fine.example:443',
          outcome: 'ok',
          connectMs: 1234,
        },
      ],
    });
    // US traffic, for the by-country table (its figures come from the same records: 1 of 2 ok).
    await e2e.internal.admin.adjustUserBalance.mutate({ id: user.id, deltaGB: 1, reason: 'e2e traffic' });
    await gatewayTraffic(e2e, user, 1000, 'US');
    await page.goto('/connections');
    const rows = page.getByTestId('connection-row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.first().innerText()).toContain('fine.example:443');
    await page.getByLabel('Outcome').selectOption('target_unreachable');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().innerText()).toContain('slow.example:443');

    await page.goto('/dashboard');
    await expect.poll(() => page.getByTestId('usage-by-outcome').innerText()).toContain('the site did not answer through this exit');
    const byTarget = page.getByTestId('usage-by-target');
    expect(await byTarget.innerText()).toContain('slow.example');
    expect(await byTarget.locator('th').allTextContents()).toEqual(['By target', 'Traffic', 'Connections', 'Success', 'Median connect']);
    const targetRow = (host: string) => byTarget.locator('tbody tr', { hasText: host }).locator('td').allInnerTexts();
    expect((await targetRow('fine.example')).slice(2)).toEqual(['1', '100.0%', '1,234 ms']);
    expect((await targetRow('slow.example')).slice(2)).toEqual(['1', '0.0%', '–']);
    const byCountry = page.getByTestId('usage-by-country');
    await expect.poll(() => byCountry.locator('th').allTextContents()).toEqual(['By country', 'Traffic', 'Success', 'Median connect']);
    expect(await byCountry.locator('tbody tr', { hasText: 'US' }).locator('td').allInnerTexts()).toEqual(['US', '1000 bytes', '50.0%', '1,234 ms']);
  });

  it('the Connections page lists daily statements, final and provisional, with the JSON and the CSV its digest covers', async () => {
    const twoDaysAgo = Date.now() - 2 * 86_400_000;
    await e2e.internal.gateway.report.mutate({
      gatewayId: 'e2e-gw-log',
      seq: 2,
      items: [],
      connections: [
        {
          ...(await baseRecord()),
          id: randomUUID(),
          startedAt: twoDaysAgo,
          endedAt: twoDaysAgo + 100,
          protocol: 'connect',
          target: 'old.example:443',
          outcome: 'target_unreachable',
          reason: 'connect ECONNREFUSED',
        },
      ],
    });
    await page.goto('/connections');
    const rows = page.getByTestId('statement-row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).innerText()).toContain('Provisional');
    expect(await rows.nth(1).innerText()).toContain('Final');
    // The downloads as the browser gets them: the CSV's SHA-256 is the statement's digest.
    const [json, csv] = await Promise.all(['Statement', 'Connections CSV'].map((name) => rows.nth(1).getByRole('link', { name }).getAttribute('href')));
    const statement = JSON.parse(decodeURIComponent(json!.slice(json!.indexOf(',') + 1))) as { connectionsDigest: string; final: boolean };
    const digest = await page.evaluate(async (href) => {
      const bytes = await (await fetch(href)).arrayBuffer();
      return [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
    }, csv!);
    const check = { final: statement.final, matches: digest === statement.connectionsDigest };
    expect(check).toEqual({ final: true, matches: true });
  });
});
