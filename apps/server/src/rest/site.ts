import { sitePageInput } from '@proxyhub/core';
import { restRoute } from './rest';

/** The public site: the status page's numbers and the operator's Markdown pages, rendered. */
export const siteRoutes = [
  restRoute({ method: 'GET', url: '/api/status' }, (caller) => caller.site.status()),
  restRoute({ method: 'GET', url: '/api/pages/:slug', params: sitePageInput }, (caller, input) => caller.site.page(input)),
];
