import { adminAlertsListOutput } from '@proxyhub/core';
import { restRoute } from './rest';

/** The admin's alerts, newest first: `{ alerts: [{ id, kind, upstreamId, message, createdAt, resolvedAt }], openCount }`. */
export const adminAlertsRoutes = [
  restRoute(
    { method: 'GET', url: '/admin/alerts', summary: `The admin's alerts, newest first, and how many are open.`, response: adminAlertsListOutput },
    (caller) => caller.adminAlerts.list(),
  ),
];
