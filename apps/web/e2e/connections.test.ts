import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { recordBase, startE2EWithUser, type E2E, type SessionUser } from './harness';

let e2e: E2E;
let page: Page;
let user: SessionUser;

beforeAll(async () => ({ e2e, page, user } = await startE2EWithUser('Connection Viewer')));
afterAll(() => e2e?.close());

/** What the records of the user's main account share, as a gateway reports them (nothing billed). */
const baseRecord = () => recordBase(e2e, user);

describe('connection log in the app', () => {
  it('the Connections page lists and filters what the gateway reported; the usage panel counts outcomes with a hint', async () => {
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
