import { setIpAllowlistInput } from '@proxyhub/core';
import { restRoute } from './rest';

/** The IP allow-list and password-less access (cookie or Bearer API key). */
export const ipAllowlistRoutes = [
  restRoute({ method: 'GET', url: '/api/ip-allowlist' }, (caller) => caller.ipAllowlist.get()),
  restRoute({ method: 'PUT', url: '/api/ip-allowlist', body: setIpAllowlistInput }, (caller, input) => caller.ipAllowlist.set(input)),
];
