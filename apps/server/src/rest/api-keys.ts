import {
  createApiKeyInput,
  deleteApiKeyInput,
  proxyListInput,
  apiKeysCreateOutput,
  apiKeysDeleteOutput,
  apiKeysListOutput,
  proxyLinesListOutput,
} from '@proxyhub/core';
import { RestResponse, restRoute, withSuccess } from './rest';

/** Whether the caller asked for JSON rather than the default text. */
const wantsJson = (accept: string | undefined) => /\bapplication\/json\b/i.test(accept ?? '');

/** API keys (a session or the Default key) and the proxy list for programs (scope lines:generate). */
export const apiKeyRoutes = [
  restRoute(
    { method: 'GET', url: '/api/keys', summary: `The account's API keys (never their secrets: only each key's prefix).`, response: apiKeysListOutput },
    (caller) => caller.apiKeys.list(),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/api/keys',
      summary: 'Creates an API key with scopes; the answer is the only time its secret is shown.',
      response: apiKeysCreateOutput,
      status: 201,
      body: createApiKeyInput,
    },
    async (caller, input) => new RestResponse(201, await caller.apiKeys.create(input)),
  ),
  restRoute(
    {
      method: 'DELETE',
      url: '/api/keys/:id',
      summary: 'Deletes an API key; it is refused at once on every server.',
      response: withSuccess(apiKeysDeleteOutput),
      params: deleteApiKeyInput,
    },
    async (caller, input) => ({
      success: true,
      ...(await caller.apiKeys.delete(input)),
    }),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/api/proxy-list',
      summary: 'Proxy lines from the generator: text, one line each, or JSON with Accept: application/json.',
      response: proxyLinesListOutput,
      text: { type: 'text/plain', description: 'Without `Accept: application/json`: the lines as text, one a line.' },
      query: proxyListInput,
    },
    async (caller, input, headers) => {
      const list = await caller.proxyLines.list(input);
      if (wantsJson(headers.accept)) return list;
      return new RestResponse(200, `${list.lines.join('\n')}\n`, 'text/plain; charset=utf-8');
    },
  ),
];
