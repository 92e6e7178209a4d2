import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '@proxyhub/api';
import { rest } from './rest';

/** Rotating leaked credentials: the same procedures as the Settings buttons. */
export function registerCredentialRoutes(app: FastifyInstance, deps: ApiDeps) {
  app.post('/auth/rotate-api-key', rest(deps, async (caller) => ({ success: true, apiKey: (await caller.auth.rotateApiKey()).apiKey })));
  app.post('/auth/rotate-proxy-password', rest(deps, async (caller) => ({ success: true, proxyPassword: (await caller.auth.rotateProxyPassword()).proxyPassword })));
}
