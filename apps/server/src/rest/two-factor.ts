import { twoFactorDisableInput, twoFactorEnableInput, twoFactorLoginInput } from '@proxyhub/core';
import { restRoute } from './rest';

/** Two-factor sign-in for users (session or API key) and admins, and the second step of a sign-in. */
export const twoFactorRoutes = [
  restRoute({ method: 'POST', url: '/auth/2fa/setup' }, async (caller) => ({ success: true, ...(await caller.twoFactor.setup()) })),
  restRoute({ method: 'POST', url: '/auth/2fa/enable', body: twoFactorEnableInput }, async (caller, input) => ({
    success: true,
    ...(await caller.twoFactor.enable(input)),
  })),
  restRoute({ method: 'POST', url: '/auth/2fa/disable', body: twoFactorDisableInput }, (caller, input) => caller.twoFactor.disable(input)),
  restRoute({ method: 'POST', url: '/auth/login/2fa', body: twoFactorLoginInput }, (caller, input) => caller.twoFactor.login(input)),
  restRoute({ method: 'POST', url: '/auth/admin/2fa/setup' }, async (caller) => ({ success: true, ...(await caller.twoFactor.adminSetup()) })),
  restRoute({ method: 'POST', url: '/auth/admin/2fa/enable', body: twoFactorEnableInput }, async (caller, input) => ({
    success: true,
    ...(await caller.twoFactor.adminEnable(input)),
  })),
  restRoute({ method: 'POST', url: '/auth/admin/2fa/disable', body: twoFactorDisableInput }, (caller, input) => caller.twoFactor.adminDisable(input)),
  restRoute({ method: 'POST', url: '/auth/admin/login/2fa', body: twoFactorLoginInput }, (caller, input) => caller.twoFactor.adminLogin(input)),
];
