import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '@proxyhub/api';

export function registerAdminRoutes(_app: FastifyInstance, _deps: ApiDeps) {}
