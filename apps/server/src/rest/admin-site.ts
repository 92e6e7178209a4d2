import { sellerInput, adminSellerOutput, adminSetSellerOutput } from '@proxyhub/core';
import { restRoute } from './rest';

/** The Site tab's seller: `{ seller: { companyName, address, supportEmail, legalUpdatedOn, legalEffectiveOn }, placeholders }`. */
export const adminSiteRoutes = [
  restRoute(
    {
      method: 'GET',
      url: '/admin/seller',
      summary: 'The seller named on receipts and legal pages, and which fields are still placeholders.',
      response: adminSellerOutput,
    },
    (caller) => caller.admin.seller(),
  ),
  restRoute(
    { method: 'PUT', url: '/admin/seller', summary: 'Sets the seller named on receipts and legal pages.', response: adminSetSellerOutput, body: sellerInput },
    (caller, input) => caller.admin.setSeller(input),
  ),
];
