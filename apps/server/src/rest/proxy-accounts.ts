import {
  blockTargetsInput,
  createProxyAccountInput,
  proxyAccountInput,
  proxyTestInput,
  rotateLineInput,
  setTargetRulesInput,
  targetRulesAccountInput,
  updateProxyAccountInput,
  proxyAccountsBlockTargetsOutput,
  proxyAccountsCreateOutput,
  proxyAccountsListOutput,
  proxyAccountsRotateLineOutput,
  proxyAccountsRotatePasswordOutput,
  proxyAccountsSetTargetRulesOutput,
  proxyAccountsTargetRulesOutput,
  proxyAccountsTestOutput,
  proxyAccountsUpdateOutput,
} from '@proxyhub/core';
import { RestResponse, restRoute } from './rest';

/** Proxy accounts (cookie or Bearer API key). */
export const proxyAccountsRoutes = [
  restRoute(
    {
      method: 'GET',
      url: '/api/proxy-accounts',
      summary: `The caller's proxy accounts (sub-users) with their limits and usage.`,
      response: proxyAccountsListOutput,
    },
    (caller) => caller.proxyAccounts.list(),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/api/proxy-accounts',
      summary: 'Creates a proxy account (sub-user) with its own password and limits.',
      response: proxyAccountsCreateOutput,
      status: 201,
      body: createProxyAccountInput,
    },
    async (caller, input) => new RestResponse(201, await caller.proxyAccounts.create(input)),
  ),
  restRoute(
    {
      method: 'PATCH',
      url: '/api/proxy-accounts/:proxyUserId',
      summary: `Changes a proxy account's name, limits or state.`,
      response: proxyAccountsUpdateOutput,
      body: updateProxyAccountInput,
      pathParams: true,
    },
    (caller, input) => caller.proxyAccounts.update(input),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/api/proxy-accounts/:proxyUserId/rotate-password',
      summary: 'Gives a proxy account a new password; the old one stops working at once.',
      response: proxyAccountsRotatePasswordOutput,
      body: proxyAccountInput,
      pathParams: true,
    },
    (caller, input) => caller.proxyAccounts.rotatePassword(input),
  ),
  // `{ mode, patterns }` of `main` or one of the caller's proxy user ids (404 for anyone else's).
  restRoute(
    {
      method: 'GET',
      url: '/api/proxy-accounts/:id/targets',
      summary: 'The target rules (allow or deny host patterns) of `main` or a proxy account.',
      response: proxyAccountsTargetRulesOutput,
      params: targetRulesAccountInput,
    },
    (caller, input) => caller.proxyAccounts.targetRules(input),
  ),
  restRoute(
    {
      method: 'PUT',
      url: '/api/proxy-accounts/:id/targets',
      summary: 'Sets the target rules of `main` or a proxy account.',
      response: proxyAccountsSetTargetRulesOutput,
      body: setTargetRulesInput,
      pathParams: true,
    },
    (caller, input) => caller.proxyAccounts.setTargetRules(input),
  ),
  // "Block for this account": `{ hosts }` join the account's deny rules; answers the rules now.
  restRoute(
    {
      method: 'POST',
      url: '/api/proxy-accounts/:id/targets/block',
      summary: `Adds hosts to an account's deny rules; answers the rules now.`,
      response: proxyAccountsBlockTargetsOutput,
      body: blockTargetsInput,
      pathParams: true,
    },
    (caller, input) => caller.proxyAccounts.blockTargets(input),
  ),
  // `{ ok, latencyMs, exitIp, country }` or `{ ok: false, error }`: a line that does not work is an answer, not an error.
  restRoute(
    {
      method: 'POST',
      url: '/api/proxy-test',
      summary: 'Tests a proxy line through the gateway: latency, exit IP and country, or why it failed.',
      response: proxyAccountsTestOutput,
      body: proxyTestInput,
    },
    (caller, input) => caller.proxyAccounts.test(input),
  ),
  // `{ username, rotation, rotatedAt }`: every gateway gives the line a new session within 5 s and closes its tunnels.
  restRoute(
    {
      method: 'POST',
      url: '/api/lines/rotate',
      summary: 'Gives a sticky line a new session on every gateway within 5 s and closes its tunnels.',
      response: proxyAccountsRotateLineOutput,
      body: rotateLineInput,
    },
    (caller, input) => caller.proxyAccounts.rotateLine(input),
  ),
];
