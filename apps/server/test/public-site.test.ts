/**
 * The public site's data: GET /api/status (the fleet now and its daily uptime from heartbeats) and
 * GET /api/pages/:slug (the operator's Markdown pages, read at each request).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateways, uptimeDays } from '@proxyhub/db';
import { gatewayHeartbeat, startTestServer, type TestServer } from './helpers';

interface Status {
  status: 'operational' | 'degraded' | 'down';
  gatewaysUp: number;
  gatewaysTotal: number;
  uptime30d: number | null;
  days: Array<{ date: string; uptime: number | null }>;
}

const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const beat = gatewayHeartbeat;

// One server as deployed (status cached), one that answers the status fresh each time, one with an
// operator's content folder.
let plain: TestServer;
let server: TestServer;
let custom: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'proxyhub-content-'));
beforeAll(async () => {
  // One after another: parallel starts compete for the CPU with the other test files.
  plain = await startTestServer();
  server = await startTestServer({ statusCacheMs: 0 });
  custom = await startTestServer({ contentDir: dir });
});
afterAll(async () => {
  await Promise.all([plain?.close(), server?.close(), custom?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('GET /api/status', () => {
  const status = async () => {
    const r = await server.client({ origin: null }).get<Status>('/api/status');
    expect(r.status).toBe(200);
    return r.body;
  };

  it('is public; down with no gateway and no uptime until a day of heartbeats', async () => {
    const s = await status();
    expect(s).toMatchObject({ status: 'down', gatewaysUp: 0, gatewaysTotal: 0, uptime30d: null });
    expect(s.days).toHaveLength(90);
    expect(s.days.at(-1)!.date).toBe(dayOf(Date.now()));
    expect(s.days.every((d) => d.uptime === null)).toBe(true);
  });

  it('operational when every gateway beats, degraded when one is silent, the retired ones not counted', async () => {
    await beat(server, 'gw-a');
    await beat(server, 'gw-b');
    await beat(server, 'gw-b');
    expect(await status()).toMatchObject({ status: 'operational', gatewaysUp: 2, gatewaysTotal: 2, uptime30d: null });
    // Heartbeats of one minute count it once (the minute may have turned between the beats).
    const [today] = await server.deps.db
      .select()
      .from(uptimeDays)
      .where(eq(uptimeDays.day, dayOf(Date.now())));
    expect(today!.upMinutes).toBeGreaterThanOrEqual(1);
    expect(today!.upMinutes).toBeLessThanOrEqual(2);

    // No API makes a gateway silent for minutes or days: its last heartbeat is moved back.
    const silentFor = (id: string, ms: number) =>
      server.deps.db
        .update(gateways)
        .set({ lastSeenAt: new Date(Date.now() - ms) })
        .where(eq(gateways.id, id));
    await silentFor('gw-b', 5 * 60_000);
    expect(await status()).toMatchObject({ status: 'degraded', gatewaysUp: 1, gatewaysTotal: 2 });
    await silentFor('gw-b', 2 * DAY);
    expect(await status()).toMatchObject({ status: 'operational', gatewaysUp: 1, gatewaysTotal: 1 });
    await silentFor('gw-a', 5 * 60_000);
    expect(await status()).toMatchObject({ status: 'down', gatewaysUp: 0, gatewaysTotal: 1 });
  });

  it('daily uptime over 90 days and uptime30d from the counted minutes, rounded down', async () => {
    // History no API can write: counting began 40 days ago at midnight; day -3 was half up, day -5
    // fully down (no row at all), the others fully up.
    const todayStart = Date.parse(`${dayOf(Date.now())}T00:00:00Z`);
    const rows = [];
    for (let i = 40; i >= 1; i--) {
      if (i === 5) continue;
      const start = new Date(todayStart - i * DAY);
      const up = i === 3 ? 720 : 1440;
      rows.push({ day: dayOf(start.getTime()), upMinutes: up, firstMinuteAt: start, lastMinuteAt: new Date(start.getTime() + (up - 1) * 60_000) });
    }
    await server.deps.db.insert(uptimeDays).values(rows);

    const [todayRow] = await server.deps.db
      .select()
      .from(uptimeDays)
      .where(eq(uptimeDays.day, dayOf(todayStart)));
    const todayMinutes = Math.floor((Date.now() - todayStart) / 60_000);
    const s = await status();
    const byDate = new Map(s.days.map((d) => [d.date, d.uptime]));
    expect(byDate.get(dayOf(todayStart - 41 * DAY))).toBeNull();
    expect(byDate.get(dayOf(todayStart - 10 * DAY))).toBe(100);
    expect(byDate.get(dayOf(todayStart - 3 * DAY))).toBe(50);
    expect(byDate.get(dayOf(todayStart - 5 * DAY))).toBe(0);
    expect(s.days.at(-1)!.uptime).not.toBeNull();
    // The last 30 days: 29 whole days (one down, one half up) and today's minutes so far, of which
    // only the earlier heartbeats' (1 or 2) were up. Rounded down to 0.01.
    const expected = (100 * (27 * 1440 + 720 + todayRow!.upMinutes)) / (29 * 1440 + todayMinutes);
    expect(s.uptime30d).not.toBeNull();
    expect(Math.abs(s.uptime30d! - expected)).toBeLessThan(0.02);
    expect(Number.isInteger(Math.round(s.uptime30d! * 100 * 1000) / 1000)).toBe(true);
  });

  it('is served from memory for a few seconds', async () => {
    const first = (await plain.client().get<Status>('/api/status')).body;
    expect(first).toMatchObject({ status: 'down', gatewaysTotal: 0 });
    await beat(plain, 'gw-new');
    expect((await plain.client().get<Status>('/api/status')).body).toEqual(first);
  });
});

describe('GET /api/pages/:slug', () => {
  it.each([
    ['terms', 'Terms of Service'],
    ['privacy', 'Privacy Policy'],
    ['acceptable-use', 'Acceptable Use Policy'],
    ['refunds', 'Refund Policy'],
  ])('ships a default %s page: { title, html }', async (slug, title) => {
    const r = await plain.client({ origin: null }).get<{ title: string; html: string }>(`/api/pages/${slug}`);
    expect(r.status).toBe(200);
    expect(r.body.title).toBe(title);
    expect(r.body.html).toContain('<h2>');
    expect(r.body.html).not.toContain(`<h1>${title}</h1>`);
  });

  it('reads the operator’s file at each request, and renders Markdown with HTML shown as text', async () => {
    const page = () => custom.client().get<{ title: string; html: string }>('/api/pages/terms');
    expect((await page()).status).toBe(404);
    writeFileSync(join(dir, 'terms.md'), '# Our Terms\n\nFirst **version**.\n');
    expect((await page()).body).toEqual({ title: 'Our Terms', html: '<p>First <strong>version</strong>.</p>\n' });
    writeFileSync(
      join(dir, 'terms.md'),
      '# Our Terms v2\n\n<script>alert(1)</script>\n\n[bad](javascript:alert(1)) [good](/refunds) <img src=x onerror=alert(1)>\n',
    );
    const html = (await page()).body.html;
    expect((await page()).body.title).toBe('Our Terms v2');
    expect(html).not.toMatch(/<script|<img|href="javascript/i);
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('<a href="/refunds">good</a>');
  });

  it('answers 404 for an unknown page and for anything that is not a plain name', async () => {
    for (const slug of ['nope', 'README', '..%2Fpackage', '.env', 'terms.md', 'a'.repeat(300)]) {
      const r = await plain.client().get(`/api/pages/${slug}`);
      expect(r.status, slug).toBe(404);
      expect(r.body).toMatchObject({ success: false, error: expect.any(String) });
    }
  });
});
