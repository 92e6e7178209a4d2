import type { UsageType } from '@proxyhub/core';

/** Everything the API needs from the environment, already validated by the app that hosts it. */
export interface ApiConfig {
  production: boolean;
  /** Origin the browser uses; links in mail, OAuth and payment callbacks are built from it only. */
  publicUrl: string;
  dataDir: string;
  appSecret: string;
  internalApiKey: string;
  gateway: { publicHost: string | null; publicPort: number };
  google: null | { clientId: string; clientSecret: string; authorizationEndpoint?: string; tokenEndpoint?: string };
  payments: {
    provider: 'sandbox' | 'nowpayments';
    nowpayments: null | { apiUrl: string; apiKey: string; ipnSecret: string };
  };
  rateLimits: RateLimitConfig;
}

export interface RateLimitRule {
  points: number;
  durationSeconds: number;
}
export type RateLimitName =
  | 'login'
  | 'loginAccount'
  | 'register'
  | 'resend'
  | 'resendAccount'
  | 'forgot'
  | 'forgotAccount'
  | 'reset'
  | 'redeem'
  | 'redeemUser'
  | 'adminLogin'
  | 'batch'
  | 'payment';
export type RateLimitConfig = Record<RateLimitName, RateLimitRule>;

export const DEFAULT_RATE_LIMITS: RateLimitConfig = {
  login: { points: 30, durationSeconds: 15 * 60 },
  loginAccount: { points: 10, durationSeconds: 15 * 60 },
  register: { points: 10, durationSeconds: 60 * 60 },
  resend: { points: 10, durationSeconds: 60 * 60 },
  resendAccount: { points: 3, durationSeconds: 60 * 60 },
  forgot: { points: 10, durationSeconds: 60 * 60 },
  forgotAccount: { points: 3, durationSeconds: 60 * 60 },
  reset: { points: 20, durationSeconds: 60 * 60 },
  redeem: { points: 30, durationSeconds: 15 * 60 },
  redeemUser: { points: 10, durationSeconds: 15 * 60 },
  adminLogin: { points: 10, durationSeconds: 15 * 60 },
  batch: { points: 20, durationSeconds: 15 * 60 },
  /** Orders per user: each one is a provider invoice. */
  payment: { points: 20, durationSeconds: 60 * 60 },
};

export type { UsageType };
