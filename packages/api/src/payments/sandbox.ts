/**
 * The sandbox provider (the default outside production): the invoice is a page of our own server
 * where the order is paid or failed by a click, which sends a signed delivery through the same
 * webhook code path as a real provider. Signed with a key derived from APP_SECRET.
 */
import { createHmac } from 'node:crypto';
import type { PAYMENT_STATUSES } from '@proxyhub/core';
import type { PaymentProvider, ProviderPayment } from './provider';
import { signBody, verifySignature } from './signature';

export const SANDBOX_SIGNATURE_HEADER = 'x-sandbox-sig';

export function sandboxSecret(appSecret: string): string {
  return createHmac('sha256', appSecret).update('proxyhub:sandbox-payments').digest('hex');
}

export interface SandboxNotification {
  order_id: string;
  payment_id: string;
  /** The page sends finished, failed or partially_paid; tests send any status a provider reports. */
  payment_status: (typeof PAYMENT_STATUSES)[number];
  price_amount: number;
  /** USD paid, for a partial payment. */
  actually_paid?: number;
  price_currency: 'usd';
  /** The sandbox's stand-in for a provider's payer account (the referral rule compares it). */
  payer_id?: string;
}

export function signSandboxNotification(appSecret: string, body: SandboxNotification): string {
  return signBody(sandboxSecret(appSecret), body);
}

export function createSandboxProvider(opts: { appSecret: string; publicUrl: string }): PaymentProvider {
  const secret = sandboxSecret(opts.appSecret);
  return {
    name: 'sandbox',
    createInvoice(req) {
      return Promise.resolve({ invoiceId: `sbx_${req.orderId}`, invoiceUrl: new URL(`/sandbox/pay/${req.orderId}`, opts.publicUrl).toString() });
    },
    verifyNotification(body, header) {
      if (!verifySignature(secret, body, header(SANDBOX_SIGNATURE_HEADER))) return null;
      const b = body as Partial<SandboxNotification>;
      if (typeof b.order_id !== 'string' || typeof b.payment_status !== 'string') return null;
      return {
        orderId: b.order_id,
        paymentId: typeof b.payment_id === 'string' ? b.payment_id : null,
        status: b.payment_status,
        priceCents: typeof b.price_amount === 'number' ? Math.round(b.price_amount * 100) : null,
        priceCurrency: typeof b.price_currency === 'string' ? b.price_currency : null,
        paidCents: typeof b.actually_paid === 'number' && b.actually_paid >= 0 ? Math.floor(Math.round(b.actually_paid * 1e6) / 1e4) : null,
        payerId: typeof b.payer_id === 'string' && b.payer_id ? b.payer_id.slice(0, 200) : null,
      };
    },
    fetchPayment(n: ProviderPayment) {
      return Promise.resolve(n);
    },
  };
}
