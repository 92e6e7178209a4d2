import { z } from 'zod';
import { BILLING_KINDS, billingLine, ORDER_STEPS } from '../billing';

/** What the `billing.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

/** One line of billing history (also in the admin's user detail). */
export const billingEntryOutput = z.object({
  id: z.string(),
  createdAt: z.string(),
  kind: z.enum(BILLING_KINDS),
  bytes: z.string(),
  description: z.string(),
  line: billingLine,
  reference: z.string().nullable(),
  history: z.array(z.object({ status: z.enum(ORDER_STEPS), at: z.string() })).optional(),
  invoiceUrl: z.string().nullable().optional(),
  cancellable: z.boolean().optional(),
});

export const billingListOutput = z.object({
  entries: z.array(billingEntryOutput),
  nextCursor: z.string().nullable(),
});

export const billingReceiptOutput = z.object({
  paymentId: z.string(),
  receiptNumber: z.string(),
  seller: z.object({ companyName: z.string(), address: z.string(), supportEmail: z.string() }),
  buyer: z.object({ name: z.string(), email: z.string() }),
  paidAt: z.string(),
  amountUsd: z.string(),
  gb: z.number(),
  bytesCredited: z.string(),
  gbCredited: z.string(),
  provider: z.string(),
  providerPaymentId: z.string().nullable(),
  bonusNote: z.string().nullable(),
});
