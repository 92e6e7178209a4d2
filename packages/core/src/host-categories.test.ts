import { describe, expect, it } from 'vitest';
import { HOST_CATEGORIES, hostCategory, hostCategorySuffixes } from './host-categories';
import { normalizePattern } from './target-policy';

describe('hostCategory', () => {
  it('finds a listed name and its subdomains, not look-alikes or addresses', () => {
    expect(hostCategory('google-analytics.com')).toBe('analytics');
    expect(hostCategory('Region1.Google-Analytics.com.')).toBe('analytics');
    expect(hostCategory('securepubads.g.doubleclick.net')).toBe('advertising');
    expect(hostCategory('fonts.gstatic.com')).toBe('fonts');
    expect(hostCategory('i.ytimg.com')).toBe('media_cdn');
    expect(hostCategory('o123.ingest.sentry.io')).toBe('telemetry');
    expect(hostCategory('challenges.cloudflare.com')).toBe('captcha');
    expect(hostCategory('notgoogle-analytics.com')).toBeNull();
    expect(hostCategory('gstatic.com')).toBeNull();
    expect(hostCategory('cloudflare.com')).toBeNull();
    expect(hostCategory('127.0.0.1')).toBeNull();
    expect(hostCategory('[2001:db8::1]')).toBeNull();
  });

  it("every listed name is a target pattern (so it can go into an account's rules) and in one category only", () => {
    const all = HOST_CATEGORIES.flatMap((c) => hostCategorySuffixes(c));
    expect(all.every((s) => normalizePattern(s) === s)).toBe(true);
    expect(new Set(all).size).toBe(all.length);
  });
});
