import type { IncomingHttpHeaders } from 'node:http';
import { signBody } from '@proxyhub/api';
import { startFakeJsonApi } from '@proxyhub/testing';

export const NP_API_KEY = 'np-test-api-key';
export const NP_IPN_SECRET = 'np-test-ipn-secret';

export interface FakePayment {
  payment_id: number;
  invoice_id: number;
  order_id: string;
  payment_status: string;
  price_amount: number;
  price_currency: string;
  pay_amount: number;
  pay_currency: string;
  actually_paid: number;
}

/** A stand-in for NOWPayments on loopback: invoices, payments by id, and signed IPN bodies. */
export class FakeNowPayments {
  readonly invoices: Array<{ headers: IncomingHttpHeaders; body: Record<string, unknown> }> = [];
  readonly payments = new Map<number, FakePayment>();
  failInvoices = false;
  paymentReads = 0;
  private api!: { url: string; close(): Promise<void> };
  private nextId = 5_000_000;
  url = '';

  async start() {
    this.api = await startFakeJsonApi((req, send) => {
      if (req.headers['x-api-key'] !== NP_API_KEY) return send(403, { message: 'Invalid api key' });
      if (req.method === 'POST' && req.url === '/v1/invoice') {
        if (this.failInvoices) return send(500, { message: 'down' });
        const body = JSON.parse(req.body) as Record<string, unknown>;
        this.invoices.push({ headers: req.headers, body });
        const id = this.nextId++;
        return send(200, { id: String(id), order_id: body.order_id, invoice_url: `https://nowpayments.example/payment/?iid=${id}` });
      }
      const m = /^\/v1\/payment\/(\d+)$/.exec(req.url);
      if (req.method === 'GET' && m) {
        this.paymentReads++;
        const p = this.payments.get(Number(m[1]));
        return p ? send(200, p) : send(404, { message: 'Payment not found' });
      }
      send(404, { message: 'not found' });
    });
    this.url = this.api.url;
    return this;
  }

  close() {
    return this.api.close();
  }

  /** The provider's record of a payment for an order (what GET /v1/payment/:id answers). */
  pay(orderId: string, priceUsd: number, status = 'waiting'): FakePayment {
    const p: FakePayment = {
      payment_id: this.nextId++,
      invoice_id: 1,
      order_id: orderId,
      payment_status: status,
      price_amount: priceUsd,
      price_currency: 'usd',
      pay_amount: 0.00012,
      pay_currency: 'btc',
      actually_paid: 0,
    };
    this.payments.set(p.payment_id, p);
    return p;
  }

  /** An IPN body as NOWPayments sends it, and its signature. */
  ipn(p: FakePayment, overrides: Partial<FakePayment> = {}, secret = NP_IPN_SECRET) {
    const body = {
      ...p,
      ...overrides,
      updated_at: Date.now(),
      outcome_amount: 10.5,
      outcome_currency: 'usdttrc20',
      fee: { currency: 'btc', depositFee: 0, withdrawalFee: 0, serviceFee: 0 },
    };
    return { body, sig: signBody(secret, body) };
  }
}
