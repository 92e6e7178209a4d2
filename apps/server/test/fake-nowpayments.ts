import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signBody } from '@proxyhub/api';

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
  readonly invoices: Array<{ headers: IncomingMessage['headers']; body: Record<string, unknown> }> = [];
  readonly payments = new Map<number, FakePayment>();
  failInvoices = false;
  paymentReads = 0;
  private server!: Server;
  private nextId = 5_000_000;
  url = '';

  async start() {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const send = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        };
        if (req.headers['x-api-key'] !== NP_API_KEY) return send(403, { message: 'Invalid api key' });
        if (req.method === 'POST' && req.url === '/v1/invoice') {
          if (this.failInvoices) return send(500, { message: 'down' });
          const body = JSON.parse(raw) as Record<string, unknown>;
          this.invoices.push({ headers: req.headers, body });
          const id = this.nextId++;
          return send(200, { id: String(id), order_id: body.order_id, invoice_url: `https://nowpayments.example/payment/?iid=${id}` });
        }
        const m = /^\/v1\/payment\/(\d+)$/.exec(req.url ?? '');
        if (req.method === 'GET' && m) {
          this.paymentReads++;
          const p = this.payments.get(Number(m[1]));
          return p ? send(200, p) : send(404, { message: 'Payment not found' });
        }
        send(404, { message: 'not found' });
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close() {
    return new Promise<void>((r) => this.server.close(() => r()));
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
