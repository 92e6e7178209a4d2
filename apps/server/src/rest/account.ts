import {
  changePasswordInput,
  deleteAccountInput,
  renameInput,
  updateAccountInput,
  authChangePasswordOutput,
  authDeleteAccountOutput,
  authRenameOutput,
} from '@proxyhub/core';
import { restRoute, withSuccess } from './rest';

/** Settings' account section: the same procedures, cookie or Bearer API key. */
export const accountRoutes = [
  restRoute(
    {
      method: 'POST',
      url: '/auth/change-password',
      summary: 'Changes the password (the current one is required).',
      response: withSuccess(authChangePasswordOutput),
      body: changePasswordInput,
    },
    async (caller, input) => ({
      success: true,
      ...(await caller.auth.changePassword(input)),
    }),
  ),
  restRoute(
    { method: 'PATCH', url: '/auth/user', summary: 'Renames the signed-in user.', response: withSuccess(authRenameOutput), body: renameInput },
    async (caller, input) => ({ success: true, ...(await caller.auth.rename(input)) }),
  ),
  restRoute(
    {
      method: 'PATCH',
      url: '/api/account',
      summary: `Changes the signed-in user's name or language (\`locale\`: en, ru, zh-CN, es or pt-BR; mails and bot replies follow it).`,
      response: withSuccess(authRenameOutput),
      body: updateAccountInput,
    },
    async (caller, input) => ({ success: true, ...(await caller.auth.updateAccount(input)) }),
  ),
  restRoute(
    {
      method: 'DELETE',
      url: '/auth/user',
      summary: `Deletes the signed-in user's account (the password or email confirms it).`,
      response: withSuccess(authDeleteAccountOutput),
      body: deleteAccountInput,
    },
    async (caller, input) => ({
      success: true,
      ...(await caller.auth.deleteAccount(input)),
    }),
  ),
];
