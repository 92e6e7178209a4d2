/**
 * Hosts that burn a scraper's bandwidth without carrying what it came for: analytics, advertising,
 * web fonts, media CDNs, telemetry, and captcha and challenge scripts. The bandwidth-burn advisor
 * (GET /api/usage/burn) sums a user's bytes to them. A host belongs to a category when it is one of
 * the category's names or a subdomain of one (the target policy's `example.com` meaning), found by
 * one Map look-up per label of the host, whatever the length of the lists.
 *
 * The lists are short on purpose: the hosts that carry most such bytes, taken from the sources named
 * above each list, not the whole lists (tens of thousands of rules, most of them URL paths a proxy
 * never sees inside TLS).
 */
export const HOST_CATEGORIES = ['analytics', 'advertising', 'fonts', 'media_cdn', 'telemetry', 'captcha'] as const;
export type HostCategory = (typeof HOST_CATEGORIES)[number];

const SUFFIXES: Record<HostCategory, readonly string[]> = {
  // Source: EasyPrivacy (https://easylist.to/easylist/easyprivacy.txt), its tracking-servers sections.
  analytics: [
    'google-analytics.com',
    'googletagmanager.com',
    'analytics.google.com',
    'hotjar.com',
    'hotjar.io',
    'mixpanel.com',
    'api.segment.io',
    'cdn.segment.com',
    'api.amplitude.com',
    'cdn.amplitude.com',
    'heapanalytics.com',
    'fullstory.com',
    'clarity.ms',
    'mouseflow.com',
    'quantserve.com',
    'scorecardresearch.com',
    'chartbeat.com',
    'chartbeat.net',
    'statcounter.com',
    'mc.yandex.ru',
    'static.cloudflareinsights.com',
    'crazyegg.com',
    'plausible.io',
  ],
  // Source: EasyList (https://easylist.to/easylist/easylist.txt), its ad-servers section.
  advertising: [
    'doubleclick.net',
    'googlesyndication.com',
    'googleadservices.com',
    'adservice.google.com',
    '2mdn.net',
    'adnxs.com',
    'criteo.com',
    'criteo.net',
    'taboola.com',
    'outbrain.com',
    'amazon-adsystem.com',
    'adsrvr.org',
    'pubmatic.com',
    'rubiconproject.com',
    'openx.net',
    'casalemedia.com',
    'moatads.com',
    'ads-twitter.com',
    'connect.facebook.net',
    'smartadserver.com',
    'adform.net',
    'bidswitch.net',
    'teads.tv',
    '3lift.com',
    'media.net',
  ],
  // Source: the font services' own documentation (Google Fonts, Adobe Fonts, Font Awesome, Monotype Fonts.com).
  fonts: [
    'fonts.googleapis.com',
    'fonts.gstatic.com',
    'use.typekit.net',
    'p.typekit.net',
    'use.fontawesome.com',
    'kit.fontawesome.com',
    'ka-f.fontawesome.com',
    'fast.fonts.net',
    'cloud.typography.com',
  ],
  // Source: the platforms' own documentation of their image and video hosts (YouTube, Vimeo, Meta, X, TikTok, Cloudinary, imgix, JW Player).
  media_cdn: [
    'ytimg.com',
    'googlevideo.com',
    'vimeocdn.com',
    'fbcdn.net',
    'cdninstagram.com',
    'twimg.com',
    'tiktokcdn.com',
    'res.cloudinary.com',
    'imgix.net',
    'jwpcdn.com',
    'i.imgur.com',
  ],
  // Source: EasyPrivacy's error-tracking and RUM entries, and the vendors' documentation of their intake hosts (Sentry, Datadog, New Relic, Firebase, Bugsnag).
  telemetry: [
    'ingest.sentry.io',
    'browser-intake-datadoghq.com',
    'browser-intake-datadoghq.eu',
    'nr-data.net',
    'app-measurement.com',
    'firebaselogging-pa.googleapis.com',
    'crashlytics.com',
    'sessions.bugsnag.com',
    'notify.bugsnag.com',
    'events.launchdarkly.com',
  ],
  // Source: the vendors' integration documentation (reCAPTCHA, hCaptcha, Cloudflare Turnstile, Arkose Labs, DataDome, HUMAN/PerimeterX, GeeTest).
  captcha: [
    'recaptcha.net',
    'hcaptcha.com',
    'challenges.cloudflare.com',
    'arkoselabs.com',
    'funcaptcha.com',
    'captcha-delivery.com',
    'px-cloud.net',
    'px-cdn.net',
    'geetest.com',
  ],
};

const BY_SUFFIX = new Map<string, HostCategory>(HOST_CATEGORIES.flatMap((c) => SUFFIXES[c].map((s) => [s, c] as const)));

/** The category lists, for documentation and tests. */
export function hostCategorySuffixes(category: HostCategory): readonly string[] {
  return SUFFIXES[category];
}

/** The category of a host name (it or a parent domain listed), or null; an address has none. */
export function hostCategory(host: string): HostCategory | null {
  let h = host.toLowerCase();
  if (h.endsWith('.')) h = h.slice(0, -1);
  const own = BY_SUFFIX.get(h);
  if (own) return own;
  for (let i = h.indexOf('.'); i !== -1; i = h.indexOf('.', i + 1)) {
    const c = BY_SUFFIX.get(h.slice(i + 1));
    if (c) return c;
  }
  return null;
}
