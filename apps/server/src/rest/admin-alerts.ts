import { restRoute } from './rest';

/** The admin's alerts, newest first: `{ alerts: [{ id, kind, upstreamId, message, createdAt, resolvedAt }], openCount }`. */
export const adminAlertsRoutes = [restRoute({ method: 'GET', url: '/admin/alerts' }, (caller) => caller.adminAlerts.list())];
