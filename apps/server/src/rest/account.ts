import { changePasswordInput, deleteAccountInput, renameInput } from '@proxyhub/core';
import { restRoute } from './rest';

/** Settings' account section: the same procedures, cookie or Bearer API key. */
export const accountRoutes = [
  restRoute({ method: 'POST', url: '/auth/change-password', body: changePasswordInput }, async (caller, input) => ({
    success: true,
    ...(await caller.auth.changePassword(input)),
  })),
  restRoute({ method: 'PATCH', url: '/auth/user', body: renameInput }, async (caller, input) => ({ success: true, ...(await caller.auth.rename(input)) })),
  restRoute({ method: 'DELETE', url: '/auth/user', body: deleteAccountInput }, async (caller, input) => ({
    success: true,
    ...(await caller.auth.deleteAccount(input)),
  })),
];
