import { statementConnectionsInput, statementInput, statementsInput } from '@proxyhub/core';
import { RestResponse, restRoute } from './rest';

/** Signed daily statements (the signed-in user's, cookie or API key) and the key that checks them (public). */
export const statementRoutes = [
  restRoute({ method: 'GET', url: '/api/statements/key' }, (caller) => caller.statements.key()),
  restRoute({ method: 'GET', url: '/api/statements', query: statementsInput }, (caller, input) => caller.statements.list(input)),
  restRoute({ method: 'GET', url: '/api/statements/:date', params: statementInput }, (caller, input) => caller.statements.day(input)),
  restRoute(
    { method: 'GET', url: '/api/statements/:date/connections.csv', query: statementConnectionsInput, pathParams: true },
    async (caller, input) => new RestResponse(200, await caller.statements.connectionsCsv(input), 'text/csv; charset=utf-8'),
  ),
];
