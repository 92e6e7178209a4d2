import type { ApiConfig } from '../config';
import { createNowPaymentsProvider } from './nowpayments';
import type { PaymentProvider, ProviderName } from './provider';
import { createSandboxProvider } from './sandbox';

export * from './nowpayments';
export * from './provider';
export * from './sandbox';
export * from './signature';

const cache = new WeakMap<ApiConfig, Map<ProviderName, PaymentProvider>>();

/** A provider by name, or null when it is not available here (sandbox in production, NOWPayments unconfigured). */
export function paymentProvider(config: ApiConfig, name: ProviderName): PaymentProvider | null {
  let byName = cache.get(config);
  if (!byName) {
    byName = new Map();
    cache.set(config, byName);
  }
  const hit = byName.get(name);
  if (hit) return hit;
  let p: PaymentProvider | null = null;
  if (name === 'sandbox' && !config.production) p = createSandboxProvider({ appSecret: config.appSecret, publicUrl: config.publicUrl });
  if (name === 'nowpayments' && config.payments.nowpayments) p = createNowPaymentsProvider(config.payments.nowpayments);
  if (p) byName.set(name, p);
  return p;
}
