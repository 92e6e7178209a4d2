/**
 * The gateways poll the server several times a second with the internal key; at info level their
 * request lines would bury everything a person reads in the log (the demo's banner among them).
 * Their "incoming request" and "request completed" lines are written at debug instead; errors
 * keep their level.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { isInternalCaller, type ApiDeps } from '@proxyhub/api';

export class QuietInternalLogs extends LogController {
  constructor(private readonly internalApiKey: string) {
    super();
  }

  private internal(req: FastifyRequest): boolean {
    return isInternalCaller(req.headers.authorization, this.internalApiKey);
  }

  override incomingRequest(req: FastifyRequest, reply: FastifyReply): void {
    if (this.internal(req)) req.log.debug({ req }, 'incoming request');
    else super.incomingRequest(req, reply);
  }

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    if (!error && this.internal(req)) reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
    else super.requestCompleted(error, req, reply);
  }
}

export const quietInternalLogs = (deps: ApiDeps) => new QuietInternalLogs(deps.config.internalApiKey);
