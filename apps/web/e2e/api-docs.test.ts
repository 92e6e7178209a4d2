import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, type E2E } from './harness';

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
});
afterAll(async () => {
  await e2e?.close();
});

describe('API docs', () => {
  it('/docs draws every path from /api/openapi.json under our Content-Security-Policy', async () => {
    const page = await e2e.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    page.on('pageerror', (e) => problems.push(e.message));
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));

    await page.goto(`${e2e.baseUrl}/docs`);
    expect(await page.getByTestId('docs-auth').textContent()).toContain('Authorization: Bearer <API key>');
    // Swagger UI lists the operations it read from the document.
    await page.locator('.opblock-summary-path', { hasText: '/auth/register' }).first().waitFor();
    const drawn = await page.locator('.opblock-summary-path').count();
    const doc = (await page.evaluate(async () => (await fetch('/api/openapi.json')).json())) as { paths: Record<string, object> };
    const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(drawn).toBe(operations);
    // Each path shows its summary, and opened, the schema of its answer.
    const me = page.locator('#operations-auth-getAuthUser');
    expect(await me.locator('.opblock-summary-description').textContent()).toContain('The signed-in user');
    await me.locator('.opblock-summary').click();
    await me.locator('.responses-wrapper').getByText('proxyPassword').first().waitFor();
    expect(problems).toEqual([]);
    expect(requests.every((u) => u.startsWith(e2e.baseUrl) || u.startsWith('data:'))).toBe(true);
  });
});
