import { restRoute } from './rest';

/** Rotating leaked credentials: the same procedures as the Settings buttons. */
export const credentialRoutes = [
  restRoute({ method: 'POST', url: '/auth/rotate-api-key' }, async (caller) => ({ success: true, apiKey: (await caller.auth.rotateApiKey()).apiKey })),
  restRoute({ method: 'POST', url: '/auth/rotate-proxy-password' }, async (caller) => ({
    success: true,
    proxyPassword: (await caller.auth.rotateProxyPassword()).proxyPassword,
  })),
];
