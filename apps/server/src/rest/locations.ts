import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '@proxyhub/api';
import { rest } from './rest';

type Params = { country?: string; state?: string };

/** The spec's location paths over the locations router. */
export function registerLocationsRoutes(app: FastifyInstance, deps: ApiDeps) {
  app.get('/api/locations/countries', rest(deps, async (caller) => ({ countries: await caller.locations.countries() })));
  app.get(
    '/api/locations/countries/:country/states',
    rest(deps, async (caller, _q, req) => {
      const p = req.params as Params;
      return { states: await caller.locations.states({ country: p.country ?? '' }) };
    }),
  );
  app.get(
    '/api/locations/countries/:country/states/:state/cities',
    rest(deps, async (caller, _q, req) => {
      const p = req.params as Params;
      return { cities: await caller.locations.cities({ country: p.country ?? '', state: p.state ?? '' }) };
    }),
  );
}
