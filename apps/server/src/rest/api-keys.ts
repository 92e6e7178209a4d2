import { createApiKeyInput, deleteApiKeyInput, proxyListInput } from '@proxyhub/core';
import { RestResponse, restRoute } from './rest';

/** Whether the caller asked for JSON rather than the default text. */
const wantsJson = (accept: string | undefined) => /\bapplication\/json\b/i.test(accept ?? '');

/** API keys (a session or the Default key) and the proxy list for programs (scope lines:generate). */
export const apiKeyRoutes = [
  restRoute({ method: 'GET', url: '/api/keys' }, (caller) => caller.apiKeys.list()),
  restRoute({ method: 'POST', url: '/api/keys', body: createApiKeyInput }, async (caller, input) => new RestResponse(201, await caller.apiKeys.create(input))),
  restRoute({ method: 'DELETE', url: '/api/keys/:id', params: deleteApiKeyInput }, async (caller, input) => ({
    success: true,
    ...(await caller.apiKeys.delete(input)),
  })),
  restRoute({ method: 'GET', url: '/api/proxy-list', query: proxyListInput }, async (caller, input, headers) => {
    const list = await caller.proxyLines.list(input);
    if (wantsJson(headers.accept)) return list;
    return new RestResponse(200, `${list.lines.join('\n')}\n`, 'text/plain; charset=utf-8');
  }),
];
