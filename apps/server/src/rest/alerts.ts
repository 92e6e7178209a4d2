import { setAlertsInput, alertsGetOutput, alertsSetOutput } from '@proxyhub/core';
import { restRoute } from './rest';

/** The low-balance alert threshold and the usage alert percents (cookie or Bearer API key). */
export const alertsRoutes = [
  restRoute({ method: 'GET', url: '/api/alerts', summary: 'The low-balance alert threshold.', response: alertsGetOutput }, (caller) => caller.alerts.get()),
  restRoute(
    { method: 'PUT', url: '/api/alerts', summary: 'Sets the low-balance alert threshold.', response: alertsSetOutput, body: setAlertsInput },
    (caller, input) => caller.alerts.set(input),
  ),
];
