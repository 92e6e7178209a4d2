/**
 * Provider presets for the admin's Upstreams form: host, port, protocol and both templates in each
 * provider's own grammar, from its public documentation (the pages are listed with each preset and
 * in docs/reselling.md). The admin replaces the account part written in capitals (USERNAME, ZONE, ...).
 * State targeting is documented for US states by most providers; the templates leave the state
 * out when the line has none, and the provider decides what it accepts elsewhere.
 */
import type { UpstreamProtocol } from './schemas/upstreams';

export { PRESET_ACCOUNT_PLACEHOLDERS, presetPlaceholderIn } from './upstream-placeholders';

export interface UpstreamPreset {
  id: string;
  label: string;
  protocol: UpstreamProtocol;
  host: string;
  port: number;
  usernameTemplate: string;
  passwordTemplate: string;
  /** The account part the admin fills in, as written in the templates. */
  account: string;
  docs: string[];
  /**
   * The provider's longest documented sticky session, in minutes, and the page that says so; null
   * where the provider documents none (its sessions then last as long as the line's).
   */
  maxSessionMinutes: number | null;
  sessionDocs: string | null;
}

export const UPSTREAM_PRESETS: readonly UpstreamPreset[] = [
  {
    id: 'oxylabs',
    label: 'Oxylabs',
    protocol: 'http',
    host: 'pr.oxylabs.io',
    port: 7777,
    // cc-US, st-us_california, city-los_angeles, postalcode-90012, sessid + sesstime (minutes);
    // sessid_oneip for a hard line (one exit, or a 502). No ASN: with cc, Oxylabs applies only the country.
    usernameTemplate:
      'customer-USERNAME-cc-{country}[-st-{country|lower}_{state|name|lower|snake}][-city-{city|name|lower|snake}][-postalcode-{zip}][-sessid[_oneip{hard|flag}]-{sid}-sesstime-{minutes}]',
    passwordTemplate: '',
    account: 'USERNAME',
    docs: [
      'https://developers.oxylabs.io/proxies/residential-proxies/making-requests',
      'https://developers.oxylabs.io/proxies/residential-proxies/select-state',
      'https://developers.oxylabs.io/proxies/mobile-proxies/session-control',
      'https://developers.oxylabs.io/proxies/residential-proxies/location-settings/zip-postal-code',
      'https://developers.oxylabs.io/proxies/residential-proxies/location-settings/asn-targeting',
      'https://developers.oxylabs.io/products/proxies/residential-proxies/session-control',
    ],
    // "This parameter can be set for up to 30 minutes" (sesstime).
    maxSessionMinutes: 30,
    sessionDocs: 'https://developers.oxylabs.io/proxies/mobile-proxies/session-control',
  },
  {
    id: 'brightdata',
    label: 'Bright Data',
    protocol: 'http',
    host: 'brd.superproxy.io',
    port: 33335,
    // country-us, state-ca (the state's code), city-losangeles (lower case, no spaces), zip-90012,
    // asn-7922, session-<id>, and -const after it for a hard line (the same peer, or a 502).
    usernameTemplate:
      'brd-customer-CUSTOMER_ID-zone-ZONE-country-{country|lower}[-state-{state|lower}][-city-{city|name|compact|lower}][-zip-{zip}][-asn-{asn}][-session-{sid}[-const{hard|flag}]]',
    passwordTemplate: '',
    account: 'CUSTOMER_ID, ZONE',
    docs: [
      'https://docs.brightdata.com/api-reference/proxy/geolocation-targeting',
      'https://docs.brightdata.com/api-reference/proxy/zip_code_targeting',
      'https://docs.brightdata.com/api-reference/proxy/keep_same_peer_in_session',
    ],
    // A session keeps its IP while it is used; no longest duration is documented.
    maxSessionMinutes: null,
    sessionDocs: 'https://docs.brightdata.com/api-reference/proxy/rotate_ips',
  },
  {
    id: 'decodo',
    label: 'Decodo',
    protocol: 'http',
    host: 'gate.decodo.com',
    port: 7000,
    // country-us, state-us_california, city-los_angeles, session-<id>, sessionduration (minutes, 1 to 1440).
    usernameTemplate:
      'user-USERNAME-country-{country|lower}[-state-{country|lower}_{state|name|lower|snake}][-city-{city|name|lower|snake}][-session-{sid}-sessionduration-{minutes}]',
    passwordTemplate: '',
    account: 'USERNAME',
    docs: ['https://help.decodo.com/docs/residential-proxy-custom-sticky-sessions', 'https://help.decodo.com/docs/residential-proxy-authentication-methods'],
    // "sessionduration accepts any integer (minute) value between 1 and 1440".
    maxSessionMinutes: 1440,
    sessionDocs: 'https://help.decodo.com/docs/residential-proxy-custom-sticky-sessions',
  },
  {
    id: 'iproyal',
    label: 'IPRoyal',
    protocol: 'http',
    host: 'geo.iproyal.com',
    port: 12321,
    // Targeting in the password: _country-us_state-california_city-losangeles_session-<8>_lifetime-10m.
    usernameTemplate: 'USERNAME',
    passwordTemplate:
      '{password}_country-{country|lower}[_state-{state|name|compact|lower}][_city-{city|name|compact|lower}][_session-{sid}_lifetime-{minutes}m]',
    account: 'USERNAME',
    docs: ['https://docs.iproyal.com/proxies/residential/proxy/location', 'https://docs.iproyal.com/proxies/residential/proxy/rotation'],
    // "the maximum extends to 7 days" (lifetime): our longest line too.
    maxSessionMinutes: 10080,
    sessionDocs: 'https://docs.iproyal.com/proxies/residential/proxy/rotation',
  },
  {
    id: 'evomi',
    label: 'Evomi',
    protocol: 'http',
    host: 'rp.evomi.com',
    port: 1000,
    // Targeting in the password: _country-US_region-california_city-new.york (lower case, spaces as
    // dots), _zip-90012, _asn-7922, _session-<6 to 10>_lifetime-<minutes>; a hard line sends
    // _hardsession-<id> instead, which "does not work with the lifetime parameter".
    usernameTemplate: 'USERNAME',
    passwordTemplate:
      '{password}_country-{country}[_region-{state|name|lower|dot}][_city-{city|name|lower|dot}][_zip-{zip}][_asn-{asn}][_[hard{hard|flag}]session-{sid}[_lifetime-{minutes}{hard|not}]]',
    account: 'USERNAME',
    docs: [
      'https://docs.evomi.com/proxy-instructions/residential-proxies/geo-targetting',
      'https://docs.evomi.com/proxy-instructions/residential-proxies/geo-targetting/region',
      'https://docs.evomi.com/proxy-instructions/residential-proxies/geo-targetting/city',
      'https://docs.evomi.com/proxy-instructions/residential-proxies/expert-settings/zipcode',
      'https://docs.evomi.com/proxy-instructions/residential-proxies/expert-settings/asn',
      'https://docs.evomi.com/proxy-instructions/residential-proxies/proxy-sessions',
    ],
    // "Maximum value is 120 minutes" (lifetime), on the sessions page of the same parameters.
    maxSessionMinutes: 120,
    sessionDocs: 'https://docs.evomi.com/proxy-instructions/mobile-proxies/proxy-sessions',
  },
  {
    id: 'soax',
    label: 'SOAX',
    protocol: 'http',
    host: 'proxy.soax.com',
    port: 5000,
    // package-<id>-country-us-region-california-city-los+angeles-sessionid-<id>-sessionlength-<seconds>.
    usernameTemplate:
      'package-PACKAGE_ID-country-{country|lower}[-region-{state|name|lower|plus}][-city-{city|name|lower|plus}][-sessionid-{sid}-sessionlength-{seconds}]',
    passwordTemplate: '',
    account: 'PACKAGE_ID',
    docs: ['https://helpcenter.soax.com/en/articles/6723733-sticky-sessions'],
    // sessionlength is in seconds (default 360); no longest is documented.
    maxSessionMinutes: null,
    sessionDocs: 'https://helpcenter.soax.com/en/articles/9939557-understanding-session-parameters',
  },
];
