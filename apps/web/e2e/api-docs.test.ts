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
    // Swagger UI lists the document's areas (tags), closed; each, opened, draws every operation of it.
    const doc = (await page.evaluate(async () => (await fetch('/api/openapi.json')).json())) as { paths: Record<string, Record<string, { tags: string[] }>> };
    const byTag = new Map<string, number>();
    for (const ops of Object.values(doc.paths)) for (const op of Object.values(ops)) byTag.set(op.tags[0]!, (byTag.get(op.tags[0]!) ?? 0) + 1);
    await page.locator('.opblock-tag').first().waitFor();
    expect(await page.locator('.opblock-tag').count()).toBe(byTag.size);
    for (const [tag, operations] of byTag) {
      const header = page.locator(`.opblock-tag[data-tag="${tag}"]`);
      await header.click();
      await expect.poll(() => page.locator('.opblock-summary-path').count()).toBe(operations);
      await header.click();
      await expect.poll(() => page.locator('.opblock-summary-path').count()).toBe(0);
    }
    // Each path shows its summary, and opened, the schema of its answer.
    await page.locator('.opblock-tag[data-tag="auth"]').click();
    const me = page.locator('#operations-auth-getAuthUser');
    expect(await me.locator('.opblock-summary-description').textContent()).toContain('The signed-in user');
    await me.locator('.opblock-summary').click();
    await me.locator('.responses-wrapper').getByText('proxyPassword').first().waitFor();
    expect(problems).toEqual([]);
    expect(requests.every((u) => u.startsWith(e2e.baseUrl) || u.startsWith('data:'))).toBe(true);
  });
});
