import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { templateProblem } from './upstream-template';
import { UPSTREAM_PRESETS } from './upstream-presets';

const doc = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

describe('provider presets', () => {
  it('are Oxylabs, Bright Data, Decodo, IPRoyal and SOAX, each in the template grammar with its documentation pages', () => {
    expect(UPSTREAM_PRESETS.map((p) => p.label)).toEqual(['Oxylabs', 'Bright Data', 'Decodo', 'IPRoyal', 'SOAX']);
    for (const p of UPSTREAM_PRESETS) {
      expect(templateProblem(p.usernameTemplate, 'username'), p.id).toBeNull();
      expect(templateProblem(p.passwordTemplate, 'password'), p.id).toBeNull();
      expect(p.docs.length, p.id).toBeGreaterThan(0);
      for (const url of p.docs) expect(url).toMatch(/^https:\/\//);
    }
  });

  it("are listed in the documentation as the form fills them: endpoint, both templates and the provider's pages", () => {
    const reselling = doc('docs/reselling.md');
    // Markdown table cells escape `|` as `\|`.
    const cell = (text: string) => `\`${text.replaceAll('|', '\\|')}\``;
    for (const p of UPSTREAM_PRESETS) {
      const row = reselling.split('\n').find((line) => line.startsWith(`| ${p.label} `));
      expect(row, p.label).toBeDefined();
      expect(row).toContain(`\`${p.host}:${p.port}\``);
      expect(row).toContain(cell(p.usernameTemplate));
      if (p.passwordTemplate) expect(row).toContain(cell(p.passwordTemplate));
      for (const url of p.docs) expect(row).toContain(`(${url})`);
    }
    // The README has the section and points to the table.
    const readme = doc('README.md');
    expect(readme).toMatch(/^## Reselling a provider$/m);
    expect(readme).toContain('(docs/reselling.md#reselling-a-provider)');
  });
});
