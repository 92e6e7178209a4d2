import { sitePageInput } from '@proxyhub/core';
import { restRoute } from './rest';

/** The public site: the status page's numbers, the operator's Markdown pages, rendered, and the seller they name. */
export const siteRoutes = [
  restRoute({ method: 'GET', url: '/api/status' }, (caller) => caller.site.status()),
  restRoute({ method: 'GET', url: '/api/seller' }, (caller) => caller.site.seller()),
  restRoute({ method: 'GET', url: '/api/pages/:slug', params: sitePageInput }, (caller, input) => caller.site.page(input)),
];
