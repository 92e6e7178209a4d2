/**
 * The signed-out forms' validation, loaded through form-deps.ts only: the core schemas (the server's
 * own) with zod, each behind its react-hook-form resolver.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import type { Resolver } from 'react-hook-form';
import {
  forgotPasswordInput,
  loginInput,
  registerInput,
  resendVerificationInput,
  resetPasswordForm,
  statusSubscribeInput,
  twoFactorLoginInput,
  type LoginInput,
  type RegisterInput,
} from '@proxyhub/core';

type Credentials = { email: string; password: string; name: string };
const signIn = zodResolver(loginInput);
const register = zodResolver(registerInput);

export const resolvers = {
  /** Sign-in and registration are one form, the name asked only when registering: sign-in's schema reads the two fields it has. */
  credentials: (creating: boolean): Resolver<Credentials, unknown, LoginInput | RegisterInput> =>
    creating
      ? register
      : (values, context, options) =>
          signIn({ email: values.email, password: values.password }, context, {
            ...options,
            names: options.names?.filter((n): n is 'email' | 'password' => n !== 'name'),
          }),
  forgotPassword: zodResolver(forgotPasswordInput),
  resendVerification: zodResolver(resendVerificationInput),
  resetPassword: zodResolver(resetPasswordForm),
  twoFactorLogin: zodResolver(twoFactorLoginInput),
  statusSubscribe: zodResolver(statusSubscribeInput),
};

/** react-hook-form's control without a hook: the signed-out forms take their inputs over once this has loaded. */
export { createFormControl } from 'react-hook-form';

/** The fields' messages in the language on show (the English table of codes comes with the schemas). */
export { translatedMessage } from './error-text';
