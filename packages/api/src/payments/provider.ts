/** One interface for every payment provider; the service code never branches on which one it is. */
export type ProviderName = 'sandbox' | 'nowpayments';

export interface InvoiceRequest {
  /** Our payment id; the provider echoes it back as order_id. */
  orderId: string;
  priceCents: number;
  description: string;
  ipnCallbackUrl: string;
  successUrl: string;
  cancelUrl: string;
}

export interface Invoice {
  invoiceId: string;
  invoiceUrl: string;
}

/** A payment as a provider reports it (a webhook delivery or a re-read from its API). */
export interface ProviderPayment {
  orderId: string;
  paymentId: string | null;
  status: string;
  /** Price of the order as the provider knows it, in cents; null when it did not say. */
  priceCents: number | null;
  priceCurrency: string | null;
  /** What was actually paid, in cents of the price currency, when the provider says (partial payments); null otherwise. */
  paidCents?: number | null;
  /** The payer as the provider identifies them (an account of theirs), where it does; crypto providers do not. */
  payerId?: string | null;
}

export interface PaymentProvider {
  readonly name: ProviderName;
  createInvoice(req: InvoiceRequest): Promise<Invoice>;
  /** Checks a webhook delivery's signature: the notification, or null when it is forged or malformed. */
  verifyNotification(body: unknown, header: (name: string) => string | undefined): ProviderPayment | null;
  /** The webhook is a hint; the provider's API is the truth (the sandbox has no API: its signed delivery is). */
  fetchPayment(notification: ProviderPayment): Promise<ProviderPayment>;
}

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
}
