import { setIpAllowlistInput, ipAllowlistGetOutput, ipAllowlistSetOutput } from '@proxyhub/core';
import { restRoute } from './rest';

/** The IP allow-list and password-less access (cookie or Bearer API key). */
export const ipAllowlistRoutes = [
  restRoute(
    { method: 'GET', url: '/api/ip-allowlist', summary: 'The IP allow-list and whether password-less access is on.', response: ipAllowlistGetOutput },
    (caller) => caller.ipAllowlist.get(),
  ),
  restRoute(
    {
      method: 'PUT',
      url: '/api/ip-allowlist',
      summary: 'Sets the IP allow-list and password-less access.',
      response: ipAllowlistSetOutput,
      body: setIpAllowlistInput,
    },
    (caller, input) => caller.ipAllowlist.set(input),
  ),
];
