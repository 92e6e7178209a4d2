import { sellerInput } from '@proxyhub/core';
import { restRoute } from './rest';

/** The Site tab's seller: `{ seller: { companyName, address, supportEmail, legalUpdatedOn, legalEffectiveOn }, placeholders }`. */
export const adminSiteRoutes = [
  restRoute({ method: 'GET', url: '/admin/seller' }, (caller) => caller.admin.seller()),
  restRoute({ method: 'PUT', url: '/admin/seller', body: sellerInput }, (caller, input) => caller.admin.setSeller(input)),
];
