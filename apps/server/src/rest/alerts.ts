import { setAlertsInput } from '@proxyhub/core';
import { restRoute } from './rest';

/** The low-balance alert threshold and the usage alert percents (cookie or Bearer API key). */
export const alertsRoutes = [
  restRoute({ method: 'GET', url: '/api/alerts' }, (caller) => caller.alerts.get()),
  restRoute({ method: 'PUT', url: '/api/alerts', body: setAlertsInput }, (caller, input) => caller.alerts.set(input)),
];
