/**
 * JSON in and out for every route, hence without encapsulation: bodies and tRPC inputs bounded in
 * nesting before they are parsed (json-nesting.ts), and every client error answered the same way,
 * `{ success: false, error, code }`; a 5xx is logged and kept vague.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { errorBody } from '../error-answer';
import { boundJsonNesting } from '../json-nesting';

function clientMessage(err: Error & { code?: string }): string {
  if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) return 'Malformed JSON body';
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return 'Request body is too large';
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'Unsupported content type: send application/json';
  return err.message;
}

export const jsonEdge = fp(
  async (app: FastifyInstance) => {
    boundJsonNesting(app);
    app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
      const status = err.statusCode && err.statusCode >= 400 ? err.statusCode : 500;
      if (status >= 500) {
        req.log.error({ err }, 'request failed');
        return reply.code(500).send(errorBody(500, 'Internal server error'));
      }
      return reply.code(status).send(errorBody(status, clientMessage(err)));
    });
  },
  { name: 'json-edge' },
);
