/**
 * Cookies, security headers (CSP; HSTS and upgrade-insecure-requests in production behind https) and the CSRF check (csrf.ts) for every route,
 * hence without encapsulation.
 */
import cookie from '@fastify/cookie';
import helmet from 'helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { csrfGuard } from '../csrf';

export interface SecurityOptions {
  production: boolean;
  /** PUBLIC_URL is https: only then may browsers be told to use https (a plain-HTTP production host keeps working). */
  https: boolean;
  publicUrl: string;
  /** Cookies that authenticate a request (the CSRF check guards requests that carry one). */
  sessionCookieNames: string[];
}

export const security = fp(
  async (app: FastifyInstance, opts: SecurityOptions) => {
    await app.register(cookie);
    // helmet's middleware built once: @fastify/helmet rebuilds it (and re-parses the CSP) on every request.
    const securityHeaders = helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          upgradeInsecureRequests: opts.production && opts.https ? [] : null,
        },
      },
      hsts: opts.production && opts.https,
    });
    app.addHook('onRequest', (req, reply, done) => securityHeaders(req.raw, reply.raw, (err) => done(err as Error | undefined)));
    app.addHook('onRequest', csrfGuard({ publicUrl: opts.publicUrl, cookieNames: opts.sessionCookieNames }));
  },
  { name: 'security' },
);
