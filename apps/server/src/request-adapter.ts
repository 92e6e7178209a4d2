import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestLike } from '@proxyhub/api';

/** Fastify's request and reply seen through the API's small RequestLike interface. */
export function requestLike(req: FastifyRequest, reply: FastifyReply): RequestLike {
  return {
    ip: req.ip,
    header: (name) => {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    },
    cookie: (name) => req.cookies[name],
    setCookie: (name, value, attributes) => {
      // Max-Age and Expires together: browsers that ignore Max-Age still drop the cookie on time.
      const expires = attributes.expires ?? (attributes.maxAge !== undefined ? new Date(Date.now() + attributes.maxAge * 1000) : undefined);
      reply.setCookie(name, value, { path: '/', ...attributes, ...(expires ? { expires } : {}) });
    },
  };
}
