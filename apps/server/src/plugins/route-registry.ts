/**
 * Keeps a list of every route (tests enumerate them, e.g. to fuzz) and the handlers still running
 * (shutdown waits for them). Registered first and without encapsulation, so it sees every route.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export interface RouteInfo {
  method: string;
  url: string;
}

const routeLists = new WeakMap<FastifyInstance, RouteInfo[]>();
const inFlightHandlers = new WeakMap<FastifyInstance, Set<Promise<unknown>>>();

/** Every route registered on an app built by buildApp. */
export function listRoutes(app: FastifyInstance): RouteInfo[] {
  return [...(routeLists.get(app) ?? [])];
}

/**
 * Waits for every route handler still running. app.close() only waits for open sockets: a client
 * that hung up leaves its handler running, and closing the database under it would fail it.
 */
export async function drainHandlers(app: FastifyInstance): Promise<void> {
  const running = inFlightHandlers.get(app);
  while (running?.size) await Promise.allSettled([...running]);
}

type AsyncHandler = (this: unknown, ...args: unknown[]) => Promise<unknown>;

export const routeRegistry = fp(
  async (app: FastifyInstance) => {
    const routes: RouteInfo[] = [];
    const running = new Set<Promise<unknown>>();
    routeLists.set(app, routes);
    inFlightHandlers.set(app, running);
    app.addHook('onRoute', (r) => {
      for (const method of [r.method].flat()) routes.push({ method, url: r.url });
      // Async handlers (ours, tRPC's) are tracked so shutdown can wait for them; callback-style
      // ones (static files) touch no database.
      const handler = r.handler as unknown as AsyncHandler;
      if (handler.constructor.name !== 'AsyncFunction') return;
      const tracked: AsyncHandler = function (this: unknown, ...args: unknown[]) {
        const p = handler.apply(this, args);
        running.add(p);
        const done = () => running.delete(p);
        p.then(done, done);
        return p;
      };
      r.handler = tracked;
    });
  },
  { name: 'route-registry' },
);
