/**
 * NOWPayments: invoices through its REST API (x-api-key), IPN webhooks signed with the IPN secret.
 * A delivery is only a hint: the payment is re-read from the API before anything is credited.
 */
import type { Invoice, InvoiceRequest, PaymentProvider, ProviderPayment } from './provider';
import { ProviderError } from './provider';
import { verifySignature } from './signature';

export interface NowPaymentsConfig {
  apiUrl: string;
  apiKey: string;
  ipnSecret: string;
}

const TIMEOUT_MS = 15_000;

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : null);

function toCents(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : NaN;
  return Number.isFinite(n) ? Math.round(n * 100) : null;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : NaN);

/**
 * `actually_paid` is in the pay currency (BTC...), as is `pay_amount`, what the invoice asked: the
 * share of the price paid is their ratio, floored to the cent (rounded first at 1e-6 against float noise).
 */
function paidShareCents(priceCents: number | null, actuallyPaid: unknown, payAmount: unknown): number | null {
  const paid = num(actuallyPaid);
  const asked = num(payAmount);
  if (priceCents === null || !Number.isFinite(paid) || !Number.isFinite(asked) || asked <= 0 || paid < 0) return null;
  return Math.floor(Math.round((priceCents * paid * 1e6) / asked) / 1e6);
}

/** Reads the fields we use from a NOWPayments payment object (IPN body or GET /v1/payment/:id). */
export function parseNowPayment(body: unknown): ProviderPayment | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const b = body as Record<string, unknown>;
  const orderId = str(b.order_id);
  const status = str(b.payment_status);
  if (!orderId || !status) return null;
  const priceCents = toCents(b.price_amount);
  return {
    orderId,
    paymentId: str(b.payment_id),
    status,
    priceCents,
    priceCurrency: str(b.price_currency)?.toLowerCase() ?? null,
    paidCents: paidShareCents(priceCents, b.actually_paid, b.pay_amount),
  };
}

export function createNowPaymentsProvider(cfg: NowPaymentsConfig): PaymentProvider {
  const base = cfg.apiUrl.replace(/\/+$/, '');
  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { 'x-api-key': cfg.apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : null,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new ProviderError(`NOWPayments ${method} ${path} failed: ${(err as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok) throw new ProviderError(`NOWPayments ${method} ${path} answered ${res.status}: ${text.slice(0, 200)}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new ProviderError(`NOWPayments ${method} ${path} answered with malformed JSON`);
    }
  }

  return {
    name: 'nowpayments',
    async createInvoice(req: InvoiceRequest): Promise<Invoice> {
      const r = (await call('POST', '/v1/invoice', {
        price_amount: req.priceCents / 100,
        price_currency: 'usd',
        order_id: req.orderId,
        order_description: req.description,
        ipn_callback_url: req.ipnCallbackUrl,
        success_url: req.successUrl,
        cancel_url: req.cancelUrl,
      })) as Record<string, unknown> | null;
      const invoiceId = str(r?.id);
      const invoiceUrl = str(r?.invoice_url);
      if (!invoiceId || !invoiceUrl || !/^https?:\/\//.test(invoiceUrl)) throw new ProviderError('NOWPayments returned an invoice without id or invoice_url');
      return { invoiceId, invoiceUrl };
    },
    verifyNotification(body, header) {
      if (!verifySignature(cfg.ipnSecret, body, header('x-nowpayments-sig'))) return null;
      return parseNowPayment(body);
    },
    async fetchPayment(n: ProviderPayment): Promise<ProviderPayment> {
      if (!n.paymentId || !/^[A-Za-z0-9_-]{1,64}$/.test(n.paymentId)) throw new ProviderError('notification without a usable payment_id');
      const p = parseNowPayment(await call('GET', `/v1/payment/${encodeURIComponent(n.paymentId)}`));
      if (!p) throw new ProviderError('NOWPayments returned a payment without order_id or payment_status');
      return { ...p, paymentId: p.paymentId ?? n.paymentId };
    },
  };
}
