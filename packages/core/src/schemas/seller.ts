import { z } from 'zod';
import { EMAIL_RE } from './auth';
import { requiredText } from './fields';
import { statementDate } from './statements';

/**
 * The seller: who operates the site, named in the footer, the legal pages, every "contact support"
 * text, mails and receipts (admin.setSeller, PUT /admin/seller, the Site tab's Seller card).
 */
export const sellerInput = z.object({
  companyName: requiredText('Company name is required', 200, 'Company name must be at most 200 characters'),
  /** Several lines (street, town, country); line ends are kept as \n. */
  address: requiredText('Postal address is required', 1000, 'Postal address must be at most 1000 characters').transform((v) =>
    v
      .split(/\r\n?|\n/)
      .map((line) => line.trim())
      .filter(Boolean)
      .join('\n'),
  ),
  supportEmail: requiredText('Support email is required', 254, 'Support email must be at most 254 characters')
    .regex(EMAIL_RE, 'Support email must be an email address')
    .toLowerCase(),
  legalUpdatedOn: statementDate('Last updated'),
  legalEffectiveOn: statementDate('Effective date'),
});
export type SellerInput = z.input<typeof sellerInput>;
export type Seller = z.output<typeof sellerInput>;

/** The seller's settings before an owner sets them: what a fresh install shows, and what the overview warns about. */
export const SELLER_PLACEHOLDERS = {
  companyName: 'The company named on this site (set it in Admin, Site)',
  address: 'Postal address not set yet (set it in Admin, Site)',
  supportEmail: 'support@example.com',
  legalUpdatedOn: 'replace with the date you publish this page',
  legalEffectiveOn: 'replace with the date this page applies from',
} as const satisfies Record<keyof Seller, string>;

/** Each setting's name on the Seller card, for the overview's warning. */
export const SELLER_FIELD_NAMES = {
  companyName: 'company name',
  address: 'postal address',
  supportEmail: 'support email',
  legalUpdatedOn: 'last updated date',
  legalEffectiveOn: 'effective date',
} as const satisfies Record<keyof Seller, string>;

/** The settings still at their shipped placeholder, by name. */
export function sellerPlaceholders(seller: Seller): string[] {
  return (Object.keys(SELLER_PLACEHOLDERS) as Array<keyof Seller>).filter((k) => seller[k] === SELLER_PLACEHOLDERS[k]).map((k) => SELLER_FIELD_NAMES[k]);
}
