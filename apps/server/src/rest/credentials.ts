import { authRotateApiKeyOutput, authRotateProxyPasswordOutput } from '@proxyhub/core';
import { restRoute, withSuccess } from './rest';

/** Rotating leaked credentials: the same procedures as the Settings buttons. */
export const credentialRoutes = [
  restRoute(
    {
      method: 'POST',
      url: '/auth/rotate-api-key',
      summary: 'Replaces the Default API key with a new one; the old one stops working at once.',
      response: withSuccess(authRotateApiKeyOutput),
    },
    async (caller) => ({ success: true, apiKey: (await caller.auth.rotateApiKey()).apiKey }),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/auth/rotate-proxy-password',
      summary: 'Replaces the main proxy password; the old one stops working at once.',
      response: withSuccess(authRotateProxyPasswordOutput),
    },
    async (caller) => ({
      success: true,
      proxyPassword: (await caller.auth.rotateProxyPassword()).proxyPassword,
    }),
  ),
];
