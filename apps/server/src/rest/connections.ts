import {
  abuseLookupInput,
  adminConnectionsInput,
  connectionInput,
  connectionsInput,
  type ConnectionRow,
  adminAbuseLookupOutput,
  adminUserConnectionsOutput,
  usageConnectionOutput,
  usageConnectionsOutput,
} from '@proxyhub/core';
import { connectionsCsvText } from '@proxyhub/api';
import { RestResponse, restRoute, withSuccess } from './rest';

/** The log's rows as CSV, the columns in the documented order. */
export function connectionsCsv(rows: readonly ConnectionRow[]): RestResponse {
  return new RestResponse(200, connectionsCsvText(rows), 'text/csv; charset=utf-8');
}

/** The connection log: the user's (cookie or API key) and any user's for the admin; `format=csv` the whole range. */
export const connectionRoutes = [
  restRoute(
    {
      method: 'GET',
      url: '/api/connections',
      summary: 'The connection log, a page at a time; `format=csv` for the whole range as CSV.',
      response: usageConnectionsOutput,
      text: { type: 'text/csv', description: 'With `format=csv`: every connection of the range as CSV.' },
      query: connectionsInput,
    },
    async (caller, input) => {
      if (input?.format === 'csv') return connectionsCsv(await caller.usage.connectionsAll(input));
      return caller.usage.connections(input);
    },
  ),
  /** One record by the id its connection's answers carried (X-ProxyHub-Connection), or its UUID. */
  restRoute(
    {
      method: 'GET',
      url: '/api/connections/:id',
      summary: 'One connection record by the id its answers carried (X-ProxyHub-Connection) or its UUID.',
      response: usageConnectionOutput,
      params: connectionInput,
    },
    (caller, input) => caller.usage.connection(input),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/admin/users/:id/connections',
      summary: "A user's connection log; `format=csv` for the whole range as CSV.",
      response: withSuccess(adminUserConnectionsOutput),
      text: { type: 'text/csv', description: 'With `format=csv`: every connection of the range as CSV.' },
      query: adminConnectionsInput,
      pathParams: true,
    },
    async (caller, input) => {
      if (input.format === 'csv') return connectionsCsv(await caller.admin.userConnectionsAll(input));
      return { success: true, ...(await caller.admin.userConnections(input)) };
    },
  ),
  /** Abuse reports: connections that hit a host (and its subdomains) or left through an exit IP, with their customers. */
  restRoute(
    {
      method: 'GET',
      url: '/admin/abuse',
      summary: 'Abuse lookup: connections to a host (and its subdomains) or through an exit IP, with their customers.',
      response: withSuccess(adminAbuseLookupOutput),
      query: abuseLookupInput,
    },
    async (caller, input) => ({
      success: true,
      ...(await caller.admin.abuseLookup(input)),
    }),
  ),
];
