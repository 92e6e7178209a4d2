/** Business constants from the product spec (section 9). Money in cents, traffic in bytes. */
export const BYTES_PER_GB = 1_073_741_824n;
export const BYTES_PER_MB = 1_048_576n;
export const PRICE_PER_GB_CENTS = 90;
export const MIN_ORDER_CENTS = 1000;
/** ceil(10 / 0.9): the smallest whole-GB order whose price reaches the $10 minimum. */
export const MIN_ORDER_GB = 12;
export const DEFAULT_ORDER_GB = 12;
export const MAX_ORDER_GB = 100_000;

export const DURATION_OPTIONS_MINUTES = [5, 10, 45, 60, 90, 1440, 4320, 10080] as const;
export const DEFAULT_DURATION_MINUTES = 60;
/** Duration 0 in a username: a rotating line (no session, a new exit per connection). */
export const ROTATING_DURATION_MINUTES = 0;
/** The generator's choices: rotating first, then the sticky durations. */
export const GENERATOR_DURATION_OPTIONS = [ROTATING_DURATION_MINUTES, ...DURATION_OPTIONS_MINUTES] as const;
/** The shortest sticky duration (1 to MAX: sticky; 0: rotating). */
export const MIN_DURATION_MINUTES = 1;
export const MAX_DURATION_MINUTES = 10080;

export const DEFAULT_PROXY_COUNT = 10;
export const MAX_PROXY_COUNT = 10_000;
export const DEFAULT_COUNTRY = 'US';

export const CODE_MAX_LENGTH = 20;
export const CODE_MIN_CREDITS_GB = 0.1;
export const CODE_MAX_QUANTITY = 100;

export const PASSWORD_MIN_LENGTH = 8;
export const NAME_MIN_LENGTH = 2;

export const EMAIL_VERIFICATION_TTL_MS = 24 * 60 * 60 * 1000;
export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const RESET_REDIRECT_MS = 3000;
export const PROXY_NOTICE_MS = 3000;
export const COPIED_MS = 2000;

export const USAGE_TYPES = ['normal_proxy', 'shop_proxy_regular', 'shop_proxy_admin'] as const;

/** How traffic came into the gateway: plain HTTP requests, HTTP CONNECT tunnels, SOCKS5; '' unknown (older rows). */
export const USAGE_PROTOCOLS = ['http', 'connect', 'socks5', ''] as const;
export type UsageProtocol = (typeof USAGE_PROTOCOLS)[number];
export type UsageType = (typeof USAGE_TYPES)[number];

/** Endpoint used when the page is served from localhost (spec section 9). */
export const LOCAL_GATEWAY_HOST = 'localhost';
export const LOCAL_GATEWAY_PORT = 3001;
export const PRODUCTION_GATEWAY_PORT = 8080;

/** What a suspended (disabled) user's sign-in, Google sign-in and API key are told. */
export const ACCOUNT_DISABLED_MESSAGE = 'This account has been disabled. Please contact support.';

/** A crypto order's status as the payment providers report it. */
export const PAYMENT_STATUSES = [
  'waiting',
  'confirming',
  'confirmed',
  'sending',
  'partially_paid',
  'finished',
  'failed',
  'refunded',
  'expired',
  'cancelled',
] as const;

// The spec's invalid-link messages: here, not beside the schemas that use them, so a page that only
// shows one (the reset page without a token) does not load zod.
export const INVALID_VERIFY_LINK = 'Invalid verification link. Please check your email for the correct link.';
export const INVALID_RESET_LINK = 'Invalid reset link. Please request a new password reset.';
export const INVALID_RESET_TOKEN = 'Invalid reset token. Please request a new password reset.';
