import { createProxyAccountInput, proxyAccountInput, proxyTestInput, rotateLineInput, updateProxyAccountInput } from '@proxyhub/core';
import { RestResponse, restRoute } from './rest';

/** Proxy accounts (cookie or Bearer API key). */
export const proxyAccountsRoutes = [
  restRoute({ method: 'GET', url: '/api/proxy-accounts' }, (caller) => caller.proxyAccounts.list()),
  restRoute(
    { method: 'POST', url: '/api/proxy-accounts', body: createProxyAccountInput },
    async (caller, input) => new RestResponse(201, await caller.proxyAccounts.create(input)),
  ),
  restRoute({ method: 'PATCH', url: '/api/proxy-accounts/:proxyUserId', body: updateProxyAccountInput, pathParams: true }, (caller, input) =>
    caller.proxyAccounts.update(input),
  ),
  restRoute({ method: 'POST', url: '/api/proxy-accounts/:proxyUserId/rotate-password', body: proxyAccountInput, pathParams: true }, (caller, input) =>
    caller.proxyAccounts.rotatePassword(input),
  ),
  // `{ ok, latencyMs, exitIp, country }` or `{ ok: false, error }`: a line that does not work is an answer, not an error.
  restRoute({ method: 'POST', url: '/api/proxy-test', body: proxyTestInput }, (caller, input) => caller.proxyAccounts.test(input)),
  // `{ username, rotation, rotatedAt }`: every gateway gives the line a new session within 5 s and closes its tunnels.
  restRoute({ method: 'POST', url: '/api/lines/rotate', body: rotateLineInput }, (caller, input) => caller.proxyAccounts.rotateLine(input)),
];
