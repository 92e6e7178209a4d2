import {
  twoFactorDisableInput,
  twoFactorEnableInput,
  twoFactorLoginInput,
  twoFactorAdminDisableOutput,
  twoFactorAdminEnableOutput,
  twoFactorAdminLoginOutput,
  twoFactorAdminSetupOutput,
  twoFactorDisableOutput,
  twoFactorEnableOutput,
  twoFactorLoginOutput,
  twoFactorSetupOutput,
} from '@proxyhub/core';
import { restRoute, withSuccess } from './rest';

/** Two-factor sign-in for users (session or API key) and admins, and the second step of a sign-in. */
export const twoFactorRoutes = [
  restRoute(
    { method: 'POST', url: '/auth/2fa/setup', summary: 'Starts two-factor setup: a new secret and its QR code.', response: withSuccess(twoFactorSetupOutput) },
    async (caller) => ({ success: true, ...(await caller.twoFactor.setup()) }),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/auth/2fa/enable',
      summary: 'Turns two-factor sign-in on with a code from the app; answers recovery codes once.',
      response: withSuccess(twoFactorEnableOutput),
      body: twoFactorEnableInput,
    },
    async (caller, input) => ({
      success: true,
      ...(await caller.twoFactor.enable(input)),
    }),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/auth/2fa/disable',
      summary: 'Turns two-factor sign-in off (a code or the password confirms it).',
      response: twoFactorDisableOutput,
      body: twoFactorDisableInput,
    },
    (caller, input) => caller.twoFactor.disable(input),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/auth/login/2fa',
      summary: 'The second step of a sign-in: the code (or a recovery code) with the pending-login cookie.',
      response: twoFactorLoginOutput,
      body: twoFactorLoginInput,
    },
    (caller, input) => caller.twoFactor.login(input),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/auth/admin/2fa/setup',
      summary: `Starts the admin's two-factor setup: a new secret and its QR code.`,
      response: withSuccess(twoFactorAdminSetupOutput),
    },
    async (caller) => ({ success: true, ...(await caller.twoFactor.adminSetup()) }),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/auth/admin/2fa/enable',
      summary: `Turns the admin's two-factor sign-in on; answers recovery codes once.`,
      response: withSuccess(twoFactorAdminEnableOutput),
      body: twoFactorEnableInput,
    },
    async (caller, input) => ({
      success: true,
      ...(await caller.twoFactor.adminEnable(input)),
    }),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/auth/admin/2fa/disable',
      summary: `Turns the admin's two-factor sign-in off.`,
      response: twoFactorAdminDisableOutput,
      body: twoFactorDisableInput,
    },
    (caller, input) => caller.twoFactor.adminDisable(input),
  ),
  restRoute(
    {
      method: 'POST',
      url: '/auth/admin/login/2fa',
      summary: 'The second step of an admin sign-in.',
      response: twoFactorAdminLoginOutput,
      body: twoFactorLoginInput,
    },
    (caller, input) => caller.twoFactor.adminLogin(input),
  ),
];
