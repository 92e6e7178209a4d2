import { statementConnectionsInput, statementInput, statementsInput, statementsDayOutput, statementsKeyOutput, statementsListOutput } from '@proxyhub/core';
import { RestResponse, restRoute } from './rest';

/** Signed daily statements (the signed-in user's, cookie or API key) and the key that checks them (public). */
export const statementRoutes = [
  restRoute(
    { method: 'GET', url: '/api/statements/key', summary: 'The public key that checks statement signatures (public).', response: statementsKeyOutput },
    (caller) => caller.statements.key(),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/api/statements',
      summary: 'The signed daily statements of a range of days.',
      response: statementsListOutput,
      query: statementsInput,
    },
    (caller, input) => caller.statements.list(input),
  ),
  restRoute(
    { method: 'GET', url: '/api/statements/:date', summary: `One day's signed statement.`, response: statementsDayOutput, params: statementInput },
    (caller, input) => caller.statements.day(input),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/api/statements/:date/connections.csv',
      summary: `The connections a day's statement counts, as CSV.`,
      text: { type: 'text/csv', description: 'The day’s connections as CSV.' },
      query: statementConnectionsInput,
      pathParams: true,
    },
    async (caller, input) => new RestResponse(200, await caller.statements.connectionsCsv(input), 'text/csv; charset=utf-8'),
  ),
];
