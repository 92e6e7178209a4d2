import type { FastifyReply, FastifyRequest } from 'fastify';
import { createCaller, createContext, type ApiDeps, type RequestLike, type ResponseLike } from '@proxyhub/api';
import { requestLocale } from './request-locale';

export type Caller = ReturnType<typeof createCaller>;

/** Fastify's request seen through the API's small RequestLike interface. */
export function requestLike(req: FastifyRequest): RequestLike {
  return {
    ip: req.ip,
    header: (name) => {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    },
    cookie: (name) => req.cookies[name],
    locale: requestLocale(req),
  };
}

/** Fastify's reply as the API's cookie sink. */
export function responseLike(reply: FastifyReply): ResponseLike {
  return {
    setCookie: ({ name, value, attributes }) => {
      // Max-Age and Expires together: browsers that ignore Max-Age still drop the cookie on time.
      const expires = attributes.expires ?? (attributes.maxAge !== undefined ? new Date(Date.now() + attributes.maxAge * 1000) : undefined);
      reply.setCookie(name, value, { path: '/', ...attributes, ...(expires ? { expires } : {}) });
    },
  };
}

/** A server-side caller for one request: the same context (who is calling, which cookies to set) as over tRPC. */
export async function callerFor(deps: ApiDeps, req: FastifyRequest, reply: FastifyReply): Promise<Caller> {
  return createCaller(await createContext(deps, requestLike(req), responseLike(reply)));
}
