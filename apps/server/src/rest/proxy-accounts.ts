import {
  blockTargetsInput,
  createProxyAccountInput,
  proxyAccountInput,
  proxyTestInput,
  rotateLineInput,
  setTargetRulesInput,
  targetRulesAccountInput,
  updateProxyAccountInput,
} from '@proxyhub/core';
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
  // `{ mode, patterns }` of `main` or one of the caller's proxy user ids (404 for anyone else's).
  restRoute({ method: 'GET', url: '/api/proxy-accounts/:id/targets', params: targetRulesAccountInput }, (caller, input) =>
    caller.proxyAccounts.targetRules(input),
  ),
  restRoute({ method: 'PUT', url: '/api/proxy-accounts/:id/targets', body: setTargetRulesInput, pathParams: true }, (caller, input) =>
    caller.proxyAccounts.setTargetRules(input),
  ),
  // "Block for this account": `{ hosts }` join the account's deny rules; answers the rules now.
  restRoute({ method: 'POST', url: '/api/proxy-accounts/:id/targets/block', body: blockTargetsInput, pathParams: true }, (caller, input) =>
    caller.proxyAccounts.blockTargets(input),
  ),
  // `{ ok, latencyMs, exitIp, country }` or `{ ok: false, error }`: a line that does not work is an answer, not an error.
  restRoute({ method: 'POST', url: '/api/proxy-test', body: proxyTestInput }, (caller, input) => caller.proxyAccounts.test(input)),
  // `{ username, rotation, rotatedAt }`: every gateway gives the line a new session within 5 s and closes its tunnels.
  restRoute({ method: 'POST', url: '/api/lines/rotate', body: rotateLineInput }, (caller, input) => caller.proxyAccounts.rotateLine(input)),
];
