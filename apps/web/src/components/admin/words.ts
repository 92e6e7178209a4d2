/** What the admin screens call payment statuses and audited actions: words, never a status code or a procedure name. */
import { humanizeIdentifier, type PAYMENT_STATUSES } from '@proxyhub/core';

type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const PAYMENT_STATUS_LABELS: Record<PaymentStatus, string> = {
  waiting: 'Waiting for payment',
  confirming: 'Confirming',
  confirmed: 'Confirmed',
  sending: 'Sending',
  partially_paid: 'Partly paid',
  finished: 'Paid',
  failed: 'Failed',
  refunded: 'Refunded',
  expired: 'Expired',
  cancelled: 'Cancelled by the customer',
};

/** A provider status in words; one we do not know yet reads as its own words. */
export const paymentStatusLabel = (s: string) => PAYMENT_STATUS_LABELS[s as PaymentStatus] ?? humanizeIdentifier(s);

export const ACTION_LABELS: Record<string, string> = {
  'admin.login': 'Signed in',
  'admin.login.failed': 'Sign-in failed',
  'admin.createCodes': 'Codes created',
  'admin.revokeCode': 'Code revoked',
  'admin.createPromotion': 'Promotion created',
  'admin.updatePromotion': 'Promotion changed',
  'admin.setPricing': 'Prices changed',
  'admin.setUserPrice': 'User’s price changed',
  'admin.patchUser': 'User changed',
  'admin.createAdmin': 'Admin created',
  'admin.updateAdmin': 'Admin role changed',
  'admin.disableAdmin': 'Admin disabled',
  'admin.suspendUser': 'User suspended',
  'admin.unsuspendUser': 'User unsuspended',
  'admin.adjustUserBalance': 'Balance adjusted',
  'admin.createUpstream': 'Upstream added',
  'admin.updateUpstream': 'Upstream changed',
  'admin.deleteUpstream': 'Upstream deleted',
  'admin.testUpstream': 'Upstream tested',
  'admin.setCatalogue': 'Countries changed',
  'admin.setTargetPolicy': 'Target policy changed',
  'credits.createBatch': 'Batch created',
  'gift.create': 'Gift code created',
  'gift.cancel': 'Gift code cancelled',
  'referral.pending': 'Referral recorded',
  'referral.credit': 'Referral credited',
  'referral.cancel': 'Referral cancelled',
};

/** An audited action in words: a known one by name, any other from its procedure name ("admin.fooBar" -> "Foo bar"). */
export const auditActionLabel = (action: string) => ACTION_LABELS[action] ?? humanizeIdentifier(action);
