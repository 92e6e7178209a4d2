import { describe, expect, it } from 'vitest';
import { placeNames } from './places';
import {
  parseTemplate,
  renderTemplate,
  renderUpstreamCredentials,
  templateProblem,
  templateUses,
  upstreamCarries,
  type TemplateValues,
} from './upstream-template';

const USER = 'acct-{country|lower}[-st-{state|name|lower|snake}][-city-{city|name|lower|snake}][-sid-{sid}-for-{minutes}]';
const PASS = '{password}[_life-{seconds}s]';
const render = (t: string, v: TemplateValues, kind: 'username' | 'password' = 'username') => renderTemplate(parseTemplate(t, kind), v, placeNames);

describe('upstream templates', () => {
  it("renders the issue's example for a sticky city line and a rotating country line", () => {
    const sticky = { country: 'US', state: 'CA', city: 'LOSANGELES', session: 'AB12CD34', sid: 'k3x9a0qz', minutes: '10', seconds: '600', password: 'pw' };
    expect(render(USER, sticky)).toBe('acct-us-st-california-city-los_angeles-sid-k3x9a0qz-for-10');
    expect(render(PASS, sticky, 'password')).toBe('pw_life-600s');
    const rotating = { country: 'US', session: '', sid: '', minutes: '', seconds: '', password: 'pw' };
    expect(render(USER, rotating)).toBe('acct-us');
    expect(render(PASS, rotating, 'password')).toBe('pw');
  });

  it('applies filters left to right', () => {
    const v = { country: 'US', state: 'CA', city: 'LOSANGELES' };
    expect(render('{city|name}', v)).toBe('Los Angeles');
    expect(render('{city|name|plus|lower}', v)).toBe('los+angeles');
    expect(render('{city|name|compact|lower}', v)).toBe('losangeles');
    expect(render('{state|name|upper}', v)).toBe('CALIFORNIA');
    expect(render('{country|name}', v)).toBe('United States');
    expect(render('{city|lower}', v)).toBe('losangeles');
    expect(render('{x|snake}'.replace('x', 'city'), { city: 'A B.-C' })).toBe('A_B_C');
    expect(render('{city|compact}', { city: "St. John's-Wood" })).toBe('StJohnsWood');
  });

  it('keeps plain templates as they were', () => {
    expect(
      render('user-{country}-{state}-{city}-{session}-{minutes}', { country: 'US', state: 'CA', city: 'LOSANGELES', session: 'AB12CD34', minutes: '30' }),
    ).toBe('user-US-CA-LOSANGELES-AB12CD34-30');
    expect(render('plain', {})).toBe('plain');
    expect(render('', {})).toBe('');
  });

  it('drops a group whose placeholder is empty, not its neighbours', () => {
    expect(render('a[-{state}][-x-{city}]-b', { state: 'CA' })).toBe('a-CA-b');
    expect(render('a[-s-{state}[-c-{city}]]', { state: 'CA' })).toBe('a-s-CA');
  });

  it('refuses what it cannot read, naming it', () => {
    expect(templateProblem('{region}', 'username')).toBe('unknown placeholder {region}');
    expect(templateProblem('{city|title}', 'username')).toBe("unknown filter 'title' in {city|title}");
    expect(templateProblem('a[-{state}', 'username')).toBe("unbalanced '[' at position 2");
    expect(templateProblem('a-{state', 'username')).toBe("unbalanced '{' at position 3");
    expect(templateProblem('a]', 'username')).toBe("unbalanced ']' at position 2");
    expect(templateProblem('a}', 'username')).toBe("unbalanced '}' at position 2");
    expect(templateProblem('{password}', 'username')).toBe('{password} is only allowed in the password template');
    expect(templateProblem('{password}', 'password')).toBeNull();
    expect(templateProblem('{session|name}', 'username')).toMatch(/filter 'name' applies only to/);
    expect(templateProblem(USER, 'username')).toBeNull();
  });

  it('tells which placeholders a template uses', () => {
    const nodes = parseTemplate(USER, 'username');
    expect(templateUses(nodes, 'city')).toBe(true);
    expect(templateUses(nodes, 'state', 'name')).toBe(true);
    expect(templateUses(nodes, 'session')).toBe(false);
  });

  it('carries {zip}, {asn} and {hard} only for lines that ask for them; |flag keeps a group and writes nothing', () => {
    const up = {
      usernameTemplate: 'u-{country}[-zip-{zip}][-asn-{asn}][-sessid[_oneip{hard|flag}]-{sid}]',
      passwordTemplate: '{password}[_hard-{hard}]',
      password: 'pw',
    };
    const line = { location: { country: 'US' }, session: 'TOKEN123', sid: 'k3x9a0qz', durationMinutes: 30 };
    expect(renderUpstreamCredentials(up, line)).toEqual({ username: 'u-US-sessid-k3x9a0qz', password: 'pw' });
    expect(renderUpstreamCredentials(up, { ...line, location: { country: 'US', zip: '90012', asn: '7922' }, hard: true })).toEqual({
      username: 'u-US-zip-90012-asn-7922-sessid_oneip-k3x9a0qz',
      password: 'pw_hard-1',
    });
    // A rotating line has no session to keep: {hard} stays empty.
    expect(renderUpstreamCredentials(up, { ...line, sid: '', durationMinutes: 0, hard: true }).username).toBe('u-US');
    expect(upstreamCarries(up, { location: { country: 'US', zip: '1', asn: '2' }, hard: true })).toBe(true);
    const plain = { usernameTemplate: 'u-{country}[-{sid}]', passwordTemplate: '', password: 'pw' };
    expect(upstreamCarries(plain, { location: { country: 'US' } })).toBe(true);
    expect(upstreamCarries(plain, { location: { country: 'US', zip: '90012' } })).toBe(false);
    expect(upstreamCarries(plain, { location: { country: 'US' }, hard: true })).toBe(false);
    expect(templateProblem('{zip|flag}{asn|lower}{hard}', 'username')).toBeNull();
  });
});
