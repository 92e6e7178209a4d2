import type { BillingLine } from '@proxyhub/core';
import { billingLineWords, type LineTranslate } from '@proxyhub/core/i18n';
import { i18n } from '../i18n';
import { fmt } from './format';

/** A billing line in the language on show (its screen loads the billing namespace). */
export const billingLineText = (line: BillingLine) =>
  billingLineWords(i18n.getFixedT(null, 'billing') as unknown as LineTranslate, line, {
    number: (n) => fmt.number(n),
    cents: (c) => fmt.cents(c),
    bytes: (b) => fmt.gb(b),
  });
