import { stringify } from 'csv-stringify/sync';
import { BILLING_PAGE_MAX, billingListInput, escapeHtml, formatGb, GB_CSV_COLUMN, receiptInput, billingListOutput } from '@proxyhub/core';
import type { BillingEntry, Receipt } from '@proxyhub/api';
import { errorAnswer, hasErrorAnswer } from '../error-answer';
import { RestResponse, restRoute } from './rest';

const CSV = 'text/csv; charset=utf-8';
const HTML = 'text/html; charset=utf-8';

function billingCsv(entries: BillingEntry[]): string {
  return stringify(
    entries.map((e) => [e.createdAt, e.kind, e.bytes, formatGb(BigInt(e.bytes)), e.description, e.reference ?? '', e.id]),
    { header: true, columns: ['createdAt', 'kind', 'bytes', GB_CSV_COLUMN, 'description', 'reference', 'id'] },
  );
}

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>
body { font-family: system-ui, sans-serif; color: #111827; max-width: 640px; margin: 40px auto; padding: 0 20px; }
h1 { font-size: 24px; margin: 0 0 4px; } .muted { color: #6b7280; }
table { width: 100%; border-collapse: collapse; margin: 24px 0; } th, td { text-align: left; padding: 10px 0; border-bottom: 1px solid #e5e7eb; }
td { text-align: right; font-variant-numeric: tabular-nums; } .total td, .total th { font-weight: 700; font-size: 18px; }
h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: #6b7280; margin: 0 0 4px; }
.parties { display: flex; flex-wrap: wrap; gap: 16px 48px; margin-top: 24px; } .parties p { margin: 0; line-height: 1.5; overflow-wrap: anywhere; }
@media print { a { display: none; } body { margin: 0 auto; } }
</style></head><body>${body}</body></html>
`;

/** Lines of a multi-line setting, escaped, one per line. */
const lines = (v: string) => v.split('\n').map(escapeHtml).join('<br>');

function receiptHtml(r: Receipt): string {
  const date = `${r.paidAt.slice(0, 10)} ${r.paidAt.slice(11, 16)} UTC`;
  const support = escapeHtml(r.seller.supportEmail);
  return page(
    `Receipt ${r.receiptNumber}`,
    `<h1>Receipt <span data-testid="receipt-number">${escapeHtml(r.receiptNumber)}</span></h1>
<p class="muted">ProxyHub · residential proxy traffic</p>
<div class="parties">
<section data-testid="receipt-seller"><h2>Seller</h2><p><strong>${escapeHtml(r.seller.companyName)}</strong><br>${lines(r.seller.address)}<br><a href="mailto:${support}">${support}</a></p></section>
<section data-testid="receipt-buyer"><h2>Bill to</h2><p><strong>${escapeHtml(r.buyer.name)}</strong><br>${escapeHtml(r.buyer.email)}</p></section>
</div>
<table>
<tr><th>Receipt number</th><td>${escapeHtml(r.receiptNumber)}</td></tr>
<tr><th>Order ID</th><td data-testid="receipt-order">${escapeHtml(r.paymentId)}</td></tr>
<tr><th>Date paid</th><td data-testid="receipt-date">${escapeHtml(date)}</td></tr>
<tr><th>Paid with</th><td>Crypto (${escapeHtml(r.provider)}${r.providerPaymentId ? `, payment ${escapeHtml(r.providerPaymentId)}` : ''})</td></tr>
<tr><th>Traffic credited</th><td data-testid="receipt-gb">${escapeHtml(r.gbCredited)} GB</td></tr>
${r.bonusNote ? `<tr><th>Bonus</th><td data-testid="receipt-bonus">${escapeHtml(r.bonusNote)}</td></tr>\n` : ''}<tr class="total"><th>Amount</th><td data-testid="receipt-amount">$${escapeHtml(r.amountUsd)} USD</td></tr>
</table>
<p class="muted">Questions about this receipt: contact support at <a href="mailto:${support}">${support}</a>.</p>
<p class="muted">Print this page or save it as PDF from your browser. <a href="/billing">Back to Billing</a></p>`,
  );
}

/** Billing history (cookie or Bearer API key) and printable receipts of paid orders. */
export const billingRoutes = [
  restRoute(
    {
      method: 'GET',
      url: '/api/billing',
      summary: 'Billing history (orders, codes, gifts, adjustments), newest first; `format=csv` for CSV.',
      response: billingListOutput,
      text: { type: 'text/csv', description: 'With `format=csv`: the entries as CSV.' },
      query: billingListInput,
    },
    async (caller, input) => {
      if (input?.format !== 'csv') return caller.billing.list(input);
      const { entries } = await caller.billing.list({ ...input, limit: input.limit ?? BILLING_PAGE_MAX });
      return new RestResponse(200, billingCsv(entries), CSV);
    },
  ),
  // A page for a person: errors are pages too (a signed-out browser, an unpaid order).
  restRoute(
    {
      method: 'GET',
      url: '/billing/receipts/:paymentId',
      summary: `A paid order's printable receipt (an HTML page).`,
      text: { type: 'text/html', description: 'The receipt as a page (errors are pages too).' },
      params: receiptInput,
    },
    async (caller, input) => {
      try {
        return new RestResponse(200, receiptHtml(await caller.billing.receipt(input)), HTML);
      } catch (err) {
        if (!hasErrorAnswer(err)) throw err;
        const { status, body } = errorAnswer(err);
        return new RestResponse(
          status,
          page('Receipt', `<h1>Receipt</h1><p data-testid="receipt-error">${escapeHtml(body.error)}</p><p><a href="/billing">Billing</a></p>`),
          HTML,
        );
      }
    },
  ),
];
