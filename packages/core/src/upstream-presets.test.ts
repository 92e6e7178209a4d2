import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createUpstreamInput, updateUpstreamInput } from './schemas/upstreams';
import { renderUpstreamCredentials, templateProblem } from './upstream-template';
import { presetPlaceholderIn, UPSTREAM_PRESETS } from './upstream-presets';

const doc = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

describe('provider presets', () => {
  it('are Oxylabs, Bright Data, Decodo, IPRoyal, Evomi and SOAX, each in the template grammar with its documentation pages', () => {
    expect(UPSTREAM_PRESETS.map((p) => p.label)).toEqual(['Oxylabs', 'Bright Data', 'Decodo', 'IPRoyal', 'Evomi', 'SOAX']);
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
      // The longest session the preset carries, cited.
      expect(row).toContain(p.maxSessionMinutes === null ? '| none documented' : `| ${p.maxSessionMinutes} min`);
      if (p.sessionDocs) expect(row).toContain(`(${p.sessionDocs})`);
    }
    // The README has the section and points to the table.
    const readme = doc('README.md');
    expect(readme).toMatch(/^## Reselling a provider$/m);
    expect(readme).toContain('(docs/reselling.md#reselling-a-provider)');
  });
});

describe('an upstream saved from a preset', () => {
  const oxylabs = UPSTREAM_PRESETS.find((p) => p.id === 'oxylabs')!;
  const base = { name: 'Oxylabs', protocol: 'http', host: oxylabs.host, port: oxylabs.port, password: 'pw' };
  const firstError = (r: { success: boolean; error?: { issues: { message: string }[] } }) => r.error?.issues[0]?.message;

  it("is refused while a template holds the preset's capitals or the password is empty, naming the field", () => {
    expect(presetPlaceholderIn('brd-customer-CUSTOMER_ID-zone-ZONE-country-{country|lower}')).toBe('CUSTOMER_ID');
    expect(presetPlaceholderIn('customer-acme-cc-{country}')).toBeNull();
    expect(firstError(createUpstreamInput.safeParse({ ...base, usernameTemplate: oxylabs.usernameTemplate }))).toBe(
      "Username template: replace USERNAME with your account's",
    );
    expect(firstError(createUpstreamInput.safeParse({ ...base, usernameTemplate: 'USERNAME', passwordTemplate: '{password}_country-{country}' }))).toBe(
      "Username template: replace USERNAME with your account's",
    );
    expect(firstError(createUpstreamInput.safeParse({ ...base, usernameTemplate: 'u-acme', password: '' }))).toBe('Password is required');
    expect(firstError(createUpstreamInput.safeParse({ ...base, usernameTemplate: 'u-acme', password: undefined }))).toBe('Password is required');
    expect(firstError(updateUpstreamInput.safeParse({ id: 'x', passwordTemplate: 'PACKAGE_ID-{password}' }))).toBe(
      "Password template: replace PACKAGE_ID with your account's",
    );
  });

  it('is saved disabled: enabling it at creation is refused', () => {
    const ok = createUpstreamInput.parse({ ...base, usernameTemplate: 'customer-acme-cc-{country}' });
    expect(ok.enabled).toBe(false);
    expect(firstError(createUpstreamInput.safeParse({ ...base, usernameTemplate: 'u-acme', enabled: true }))).toBe(
      'Enabled: a new upstream is saved disabled; enable it after a Test',
    );
  });

  it("sends a line longer than the provider's longest session with the provider's longest", () => {
    const up = { usernameTemplate: oxylabs.usernameTemplate.replace('USERNAME', 'acme'), password: 'pw', maxSessionMinutes: oxylabs.maxSessionMinutes };
    const line = (durationMinutes: number) => ({ location: { country: 'US' }, session: 'ABCD1234', sid: 'k3x9a0qz', durationMinutes });
    expect(renderUpstreamCredentials(up, line(10080)).username).toBe('customer-acme-cc-US-sessid-k3x9a0qz-sesstime-30');
    expect(renderUpstreamCredentials(up, line(10)).username).toBe('customer-acme-cc-US-sessid-k3x9a0qz-sesstime-10');
    expect(renderUpstreamCredentials({ ...up, maxSessionMinutes: null }, line(10080)).username).toBe('customer-acme-cc-US-sessid-k3x9a0qz-sesstime-10080');
    const soax = UPSTREAM_PRESETS.find((p) => p.id === 'soax')!;
    const seconds = renderUpstreamCredentials(
      { usernameTemplate: soax.usernameTemplate.replace('PACKAGE_ID', '1'), password: 'k', maxSessionMinutes: 60 },
      line(1440),
    );
    expect(seconds.username).toBe('package-1-country-us-sessionid-k3x9a0qz-sessionlength-3600');
  });
});

describe('the Evomi preset', () => {
  const evomi = UPSTREAM_PRESETS.find((p) => p.id === 'evomi')!;
  const up = { usernameTemplate: 'acme', passwordTemplate: evomi.passwordTemplate, password: 'pw', maxSessionMinutes: evomi.maxSessionMinutes };
  const names = { country: () => 'United States', state: () => 'California', city: () => 'Los Angeles' };
  const line = { location: { country: 'US', state: 'CA', city: 'LOSANGELES' }, session: 'ABCD1234', sid: 'k3x9a0qz', durationMinutes: 60 };

  it('spells places lower case with dots, and a session with its lifetime (at most 120 minutes)', () => {
    expect(renderUpstreamCredentials(up, line, names).password).toBe('pw_country-US_region-california_city-los.angeles_session-k3x9a0qz_lifetime-60');
    expect(renderUpstreamCredentials(up, { ...line, durationMinutes: 10080 }, names).password).toMatch(/_lifetime-120$/);
    expect(renderUpstreamCredentials(up, { ...line, durationMinutes: 0 }, names).password).toBe('pw_country-US_region-california_city-los.angeles');
  });

  it('sends a hard line as _hardsession without a lifetime (`{hard|not}` leaves that group out), with ZIP and ASN', () => {
    const hard = { ...line, location: { country: 'US', zip: '90012', asn: '7922' }, hard: true };
    expect(renderUpstreamCredentials(up, hard, names).password).toBe('pw_country-US_zip-90012_asn-7922_hardsession-k3x9a0qz');
    expect(renderUpstreamCredentials(up, { ...hard, hard: false }, names).password).toBe('pw_country-US_zip-90012_asn-7922_session-k3x9a0qz_lifetime-60');
  });
});
