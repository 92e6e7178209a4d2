import type { BillingLine } from '@proxyhub/core';
import { billingLineWords } from '@proxyhub/core/i18n';
import { lookUp } from './errors';
import { fmt } from './format';

/** A billing line in the language on show (its screen loads the billing namespace). */
export const billingLineText = (line: BillingLine) =>
  billingLineWords((key, values) => lookUp(key, { ...values, ns: 'billing' }), line, {
    number: (n) => fmt.number(n),
    cents: (c) => fmt.cents(c),
    bytes: (b) => fmt.gb(b),
  });
