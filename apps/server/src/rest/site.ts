import { sitePageInput, statusSubscribeInput, statusTokenInput } from '@proxyhub/core';
import { restRoute } from './rest';

/** The public site: the status page's numbers and quality board (and its incident mails), the operator's Markdown pages, rendered, and the seller they name. */
export const siteRoutes = [
  restRoute({ method: 'GET', url: '/api/status' }, (caller) => caller.site.status()),
  restRoute({ method: 'GET', url: '/api/status/quality' }, (caller) => caller.status.quality()),
  restRoute({ method: 'POST', url: '/api/status/subscribe', body: statusSubscribeInput }, (caller, input) => caller.status.subscribe(input)),
  restRoute({ method: 'POST', url: '/api/status/confirm', body: statusTokenInput }, (caller, input) => caller.status.confirm(input)),
  restRoute({ method: 'POST', url: '/api/status/unsubscribe', body: statusTokenInput }, (caller, input) => caller.status.unsubscribe(input)),
  restRoute({ method: 'GET', url: '/api/seller' }, (caller) => caller.site.seller()),
  restRoute({ method: 'GET', url: '/api/pages/:slug', params: sitePageInput }, (caller, input) => caller.site.page(input)),
];
