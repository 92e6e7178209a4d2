/** The core schemas the signed-out forms validate with (the server's own): loaded through form-deps.ts only, zod with them. */
export { forgotPasswordInput, loginInput, registerInput, resetPasswordForm, twoFactorLoginInput } from '@proxyhub/core';
