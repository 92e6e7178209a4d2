import type { OrderStep } from '@proxyhub/core';

const STEP_LABEL: Record<OrderStep, string> = {
  created: 'Created',
  waiting: 'Waiting for payment',
  confirming: 'Confirming',
  paid: 'Paid',
  failed: 'Failed',
  expired: 'Expired',
  cancelled: 'Cancelled',
  refunded: 'Refunded',
};

/** A billing entry's status in words (the customer's Billing page and the admin's view of it): an order's last step, else Credited. */
export function billingStatus(e: { kind: string; history?: { status: OrderStep }[] | null }): { label: string; className: string } {
  if (e.kind !== 'crypto') return { label: 'Credited', className: 'credited' };
  const last = e.history?.at(-1)?.status ?? 'created';
  return { label: STEP_LABEL[last], className: last };
}
