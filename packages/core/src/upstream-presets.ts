/**
 * Provider presets for the admin's Upstreams form: host, port, protocol and both templates in each
 * provider's own grammar, from its public documentation (the pages are listed with each preset and
 * in docs/reselling.md). The admin replaces the account part written in capitals (USERNAME, ZONE, ...).
 * State targeting is documented for US states by most providers; the templates leave the state
 * out when the line has none, and the provider decides what it accepts elsewhere.
 */
import type { UpstreamProtocol } from './schemas/upstreams';

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
}

export const UPSTREAM_PRESETS: readonly UpstreamPreset[] = [
  {
    id: 'oxylabs',
    label: 'Oxylabs',
    protocol: 'http',
    host: 'pr.oxylabs.io',
    port: 7777,
    // cc-US, st-us_california, city-los_angeles, sessid + sesstime (minutes).
    usernameTemplate:
      'customer-USERNAME-cc-{country}[-st-{country|lower}_{state|name|lower|snake}][-city-{city|name|lower|snake}][-sessid-{sid}-sesstime-{minutes}]',
    passwordTemplate: '',
    account: 'USERNAME',
    docs: [
      'https://developers.oxylabs.io/proxies/residential-proxies/making-requests',
      'https://developers.oxylabs.io/proxies/residential-proxies/select-state',
      'https://developers.oxylabs.io/proxies/mobile-proxies/session-control',
    ],
  },
  {
    id: 'brightdata',
    label: 'Bright Data',
    protocol: 'http',
    host: 'brd.superproxy.io',
    port: 33335,
    // country-us, state-ca (the state's code), city-losangeles (lower case, no spaces), session-<id>.
    usernameTemplate: 'brd-customer-CUSTOMER_ID-zone-ZONE-country-{country|lower}[-state-{state|lower}][-city-{city|name|compact|lower}][-session-{sid}]',
    passwordTemplate: '',
    account: 'CUSTOMER_ID, ZONE',
    docs: ['https://docs.brightdata.com/api-reference/proxy/geolocation-targeting'],
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
  },
];
