/**
 * What the admin screens call payment statuses, audited actions and the like: words in the language
 * on show, never a status code or a procedure name. Core's English constants stay; each is mapped
 * to its key here, at the screens that show it.
 */
import type { TFunction } from 'i18next';
import { formatGb, humanizeIdentifier, PAYMENT_STATUSES, SELLER_FIELD_NAMES } from '@proxyhub/core';
import { fmt } from '../../lib/format';

type T = TFunction<'admin'>;
type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** A provider status in words; one we do not know yet reads as its own words. */
export const paymentStatusLabel = (t: T, s: string) =>
  (PAYMENT_STATUSES as readonly string[]).includes(s) ? t(`paymentStatus.${s as PaymentStatus}`) : humanizeIdentifier(s);

/** Each audited action the log's filter offers, with its key under `actions`. */
export const ACTION_KEYS = {
  'admin.login': 'adminLogin',
  'admin.login.failed': 'adminLoginFailed',
  'admin.createCodes': 'createCodes',
  'admin.revokeCode': 'revokeCode',
  'admin.createPromotion': 'createPromotion',
  'admin.updatePromotion': 'updatePromotion',
  'admin.setPricing': 'setPricing',
  'admin.setUserPrice': 'setUserPrice',
  'admin.patchUser': 'patchUser',
  'admin.createAdmin': 'createAdmin',
  'admin.updateAdmin': 'updateAdmin',
  'admin.disableAdmin': 'disableAdmin',
  'admin.suspendUser': 'suspendUser',
  'admin.unsuspendUser': 'unsuspendUser',
  'admin.adjustUserBalance': 'adjustUserBalance',
  'admin.createUpstream': 'createUpstream',
  'admin.updateUpstream': 'updateUpstream',
  'admin.deleteUpstream': 'deleteUpstream',
  'admin.testUpstream': 'testUpstream',
  'admin.setCatalogue': 'setCatalogue',
  'admin.setTargetPolicy': 'setTargetPolicy',
  'credits.createBatch': 'createBatch',
  'gift.create': 'giftCreate',
  'gift.cancel': 'giftCancel',
  'referral.pending': 'referralPending',
  'referral.credit': 'referralCredit',
  'referral.cancel': 'referralCancel',
} as const;

/** An audited action in words: a known one by name, any other from its procedure name ("admin.fooBar" -> "Foo bar"). */
export function auditActionLabel(t: T, action: string): string {
  const key = (ACTION_KEYS as Record<string, (typeof ACTION_KEYS)[keyof typeof ACTION_KEYS]>)[action];
  return key ? t(`actions.${key}`) : humanizeIdentifier(action);
}

/** The seller settings still at their placeholder (core names them in English) in the language on show. */
export function sellerFieldNames(t: T, names: readonly string[]): string {
  const keys = Object.entries(SELLER_FIELD_NAMES) as Array<[keyof typeof SELLER_FIELD_NAMES, string]>;
  return names
    .map((name) => {
      const key = keys.find(([, n]) => n === name)?.[0];
      return key ? t(`site.fieldNames.${key}`) : name;
    })
    .join(', ');
}

const TWO_DIGITS = { minimumFractionDigits: 2, maximumFractionDigits: 2 } as const;
/** Intl takes a decimal string exactly (no float on the way); TypeScript's Intl types only know numbers. */
const decimal = (s: string) => s as unknown as number;

/** A GB figure core already rounded ("1.50", as gbBreakdown gives it) as GB in the language: "1.50 GB", "1,50 ГБ". */
export const gbText = (gb: string) => fmt.number(decimal(gb), { style: 'unit', unit: 'gigabyte', unitDisplay: 'short', ...TWO_DIGITS });

/** Bytes as a GB figure without the unit ("1.50", "1,50"), for "1.50 of 50.00 GB". */
export const gbFigure = (bytes: bigint | number | string) => fmt.number(decimal(formatGb(BigInt(bytes))), TWO_DIGITS);

/** A whole or tenths GB amount as typed by an admin ("50 GB", "1.5 GB"). */
export const gbAmount = (gb: number) => fmt.number(gb, { style: 'unit', unit: 'gigabyte', unitDisplay: 'short', maximumFractionDigits: 2 });
