import type { OrderStep } from '@proxyhub/core';
import { i18n } from '../i18n';

/** A billing entry's status in words (the customer's Billing page and the admin's view of it): an order's last step, else Credited. */
export function billingStatus(e: { kind: string; history?: { status: OrderStep }[] | null }): { label: string; className: string } {
  if (e.kind !== 'crypto') return { label: i18n.t('billingStatus.credited'), className: 'credited' };
  const last = e.history?.at(-1)?.status ?? 'created';
  return { label: i18n.t(`billingStatus.${last}`), className: last };
}
