import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '@proxyhub/api';
import { registerAdminRoutes } from './admin';
import { registerAuthRoutes } from './auth';
import { registerCredentialRoutes } from './credentials';
import { registerCreditsRoutes } from './credits';
import { registerLocationsRoutes } from './locations';
import { registerGatewayRoutes } from './gateway';

export function registerRoutes(app: FastifyInstance, deps: ApiDeps) {
  registerAuthRoutes(app, deps);
  registerCredentialRoutes(app, deps);
  registerCreditsRoutes(app, deps);
  registerAdminRoutes(app, deps);
  registerLocationsRoutes(app, deps);
  registerGatewayRoutes(app, deps);
}
