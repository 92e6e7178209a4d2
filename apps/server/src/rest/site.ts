import {
  sitePageInput,
  statusSubscribeInput,
  statusTokenInput,
  sitePageOutput,
  siteSellerOutput,
  siteStatusOutput,
  statusConfirmOutput,
  statusQualityOutput,
  statusSubscribeOutput,
  statusUnsubscribeOutput,
} from '@proxyhub/core';
import { restRoute } from './rest';

/** The public site: the status page's numbers and quality board (and its incident mails), the operator's Markdown pages, rendered, and the seller they name. */
export const siteRoutes = [
  restRoute({ method: 'GET', url: '/api/status', summary: `The public status page's numbers (public).`, response: siteStatusOutput }, (caller) =>
    caller.site.status(),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/api/status/quality',
      summary: 'The measured quality board: success rate and latency by country (public).',
      response: statusQualityOutput,
    },
    (caller) => caller.status.quality(),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/api/status/subscribe',
      summary: 'Subscribes an email address to incident mails (a confirmation link is mailed).',
      response: statusSubscribeOutput,
      body: statusSubscribeInput,
    },
    (caller, input) => caller.status.subscribe(input),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/api/status/confirm',
      summary: 'Confirms an incident-mail subscription with the mailed token.',
      response: statusConfirmOutput,
      body: statusTokenInput,
    },
    (caller, input) => caller.status.confirm(input),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/api/status/unsubscribe',
      summary: 'Ends an incident-mail subscription with its token.',
      response: statusUnsubscribeOutput,
      body: statusTokenInput,
    },
    (caller, input) => caller.status.unsubscribe(input),
  ),
  restRoute({ method: 'GET', url: '/api/seller', summary: 'The seller named on receipts and legal pages (public).', response: siteSellerOutput }, (caller) =>
    caller.site.seller(),
  ),
  restRoute(
    {
      method: 'GET',
      url: '/api/pages/:slug',
      summary: `One of the operator's Markdown pages, rendered (public).`,
      response: sitePageOutput,
      params: sitePageInput,
    },
    (caller, input) => caller.site.page(input),
  ),
];
