import { plansListOutput } from '@proxyhub/core';
import { restRoute } from './rest';

/** Plans as everyone sees them; the admin's list and changes are in admin.ts. */
export const plansRoutes = [
  restRoute({ method: 'GET', url: '/api/plans', summary: 'The plans on sale (public).', response: plansListOutput }, async (caller) => caller.plans.list()),
];
