/**
 * Requests no route can answer are refused at the edge with a 4xx, for every route, hence without
 * encapsulation. Left alone they reached the tRPC adapter, which builds a WHATWG Request and threw
 * a 500 (logged with a stack) for a Host that makes no URL (`Host:` empty) and for the methods
 * fetch forbids (TRACE, TRACK); CONNECT never reaches Fastify and had its socket dropped.
 */
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { errorBody } from '../error-answer';

/** The methods fetch's Request refuses; no route of ours serves them. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

function hostMakesUrl(host: string | undefined, path: string): boolean {
  if (host === undefined) return true;
  try {
    new URL(path, `http://${host}`);
    return host.trim() !== '';
  } catch {
    return false;
  }
}

export const requestLine = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', async (req, reply) => {
      if (FORBIDDEN_METHODS.has(req.method)) {
        return reply
          .code(405)
          .header('allow', 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS')
          .send(errorBody(405, `Method ${req.method} is not allowed`));
      }
      if (!hostMakesUrl(req.headers.host, req.raw.url ?? '/')) return reply.code(400).send(errorBody(400, 'Invalid Host header'));
    });
    // Node hands CONNECT to a 'connect' listener instead of the request handler; without one it
    // drops the socket without an answer.
    app.server.on('connect', (_req, socket: Duplex) => {
      const body = JSON.stringify(errorBody(405, 'Method CONNECT is not allowed'));
      socket.end(
        `HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
  },
  { name: 'request-line' },
);
