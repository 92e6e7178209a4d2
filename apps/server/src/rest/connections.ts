import { abuseLookupInput, adminConnectionsInput, connectionInput, connectionsInput, type ConnectionRow } from '@proxyhub/core';
import { connectionsCsvText } from '@proxyhub/api';
import { RestResponse, restRoute } from './rest';

/** The log's rows as CSV, the columns in the documented order. */
export function connectionsCsv(rows: readonly ConnectionRow[]): RestResponse {
  return new RestResponse(200, connectionsCsvText(rows), 'text/csv; charset=utf-8');
}

/** The connection log: the user's (cookie or API key) and any user's for the admin; `format=csv` the whole range. */
export const connectionRoutes = [
  restRoute({ method: 'GET', url: '/api/connections', query: connectionsInput }, async (caller, input) => {
    if (input?.format === 'csv') return connectionsCsv(await caller.usage.connectionsAll(input));
    return caller.usage.connections(input);
  }),
  /** One record by the id its connection's answers carried (X-ProxyHub-Connection), or its UUID. */
  restRoute({ method: 'GET', url: '/api/connections/:id', params: connectionInput }, (caller, input) => caller.usage.connection(input)),
  restRoute({ method: 'GET', url: '/admin/users/:id/connections', query: adminConnectionsInput, pathParams: true }, async (caller, input) => {
    if (input.format === 'csv') return connectionsCsv(await caller.admin.userConnectionsAll(input));
    return { success: true, ...(await caller.admin.userConnections(input)) };
  }),
  /** Abuse reports: connections that hit a host (and its subdomains) or left through an exit IP, with their customers. */
  restRoute({ method: 'GET', url: '/admin/abuse', query: abuseLookupInput }, async (caller, input) => ({
    success: true,
    ...(await caller.admin.abuseLookup(input)),
  })),
];
