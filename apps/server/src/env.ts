import { resolve } from 'node:path';
import { z } from 'zod';
import { trustProxyEnv } from './trust-proxy';
import {
  devSecret,
  envBool as bool,
  envEntryPorts as entryPortsEnv,
  envLogFormat,
  envOptionalString as optionalString,
  logFormatFor,
  newStatementSigningKey,
  parseEnv,
  parseStatementSigningKey,
} from '@proxyhub/core/node';
import { DEFAULT_QUALITY_INCIDENT_OK_RATE, DEFAULT_QUALITY_PROBE_MINUTES, DEFAULT_UPSTREAM_BALANCE_MINUTES, DEFAULT_UPSTREAM_CHECK_URL } from '@proxyhub/core';

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATA_DIR: z.string().default('.data'),
  DATABASE_URL: optionalString,
  PUBLIC_URL: optionalString.pipe(z.url().optional()),
  APP_SECRET: optionalString,
  ADMIN_USERNAME: z.string().min(1).default('admin'),
  ADMIN_REQUIRE_2FA: bool,
  ADMIN_PASSWORD: optionalString,
  INTERNAL_API_KEY: optionalString,
  /** Signs the daily statements: an Ed25519 private key, PEM or base64 PKCS#8. */
  STATEMENT_SIGNING_KEY: optionalString,
  SMTP_URL: optionalString,
  MAIL_FROM: z.string().default('ProxyHub <no-reply@proxyhub.local>'),
  PAYMENT_PROVIDER: z.enum(['sandbox', 'nowpayments']).default('sandbox'),
  NOWPAYMENTS_API_URL: z.string().default('https://api.nowpayments.io'),
  NOWPAYMENTS_API_KEY: optionalString,
  NOWPAYMENTS_IPN_SECRET: optionalString,
  GOOGLE_CLIENT_ID: optionalString,
  GOOGLE_CLIENT_SECRET: optionalString,
  GOOGLE_AUTH_URL: optionalString,
  GOOGLE_TOKEN_URL: optionalString,
  REDIS_URL: optionalString,
  REDIS_KEY_PREFIX: optionalString,
  GATEWAY_PUBLIC_HOST: optionalString,
  GATEWAY_PUBLIC_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  GATEWAY_PORT: z.coerce.number().int().min(1).max(65535).default(3001),
  /** The gateways' default upstream: only whether it is set matters here (every country is then offered). */
  GATEWAY_UPSTREAM_URL: optionalString,
  /** A gateway without a heartbeat for this long is down and its open leases are settled. */
  GATEWAY_DOWN_AFTER_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  CONNECTION_LOG_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  WEB_DIST_DIR: optionalString,
  /** From BotFather: turns the Telegram bot on (off, and no webhook route, without it). */
  TELEGRAM_BOT_TOKEN: optionalString,
  /** Telegram sends it in X-Telegram-Bot-Api-Secret-Token with every update (1-256 of A-Z a-z 0-9 _ -). */
  TELEGRAM_WEBHOOK_SECRET: optionalString.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,256}$/, 'TELEGRAM_WEBHOOK_SECRET: 1-256 characters of A-Z, a-z, 0-9, _ and -')
      .optional(),
  ),
  /** Where the bot's calls go: the public Bot API unless set (tests point it at a fake). */
  TELEGRAM_API_ROOT: optionalString.pipe(z.url({ protocol: /^https?$/ }).default('https://api.telegram.org')),
  /** The public pages' Markdown files (terms.md, privacy.md, ...), read at each request; default content/legal of the installation. */
  CONTENT_DIR: optionalString,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: envLogFormat,
  TRUST_PROXY: trustProxyEnv,
  /** The gateway's switch, read here too: upstream hosts on private addresses are accepted only with it. */
  GATEWAY_ALLOW_PRIVATE: bool,
  /** The gateway's entry ports, read here too: the ports an allow-list entry's port profiles may name. */
  GATEWAY_ENTRY_PORTS: entryPortsEnv,
  /** The page an admin's upstream test fetches unless it names another. */
  UPSTREAM_CHECK_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).default(DEFAULT_UPSTREAM_CHECK_URL)),
  /** How often one server of the fleet reads every provider account's balance (fractions: tests). */
  UPSTREAM_BALANCE_MINUTES: z.coerce.number().positive().max(1440).default(DEFAULT_UPSTREAM_BALANCE_MINUTES),
  /** How often one server of the fleet probes every offered country for the quality board (fractions: tests). */
  QUALITY_PROBE_MINUTES: z.coerce.number().positive().max(1440).default(DEFAULT_QUALITY_PROBE_MINUTES),
  /** A country whose last 3 probes pass less often than this share is degraded (an incident opens). */
  QUALITY_INCIDENT_OK_RATE: z.coerce.number().min(0).max(1).default(DEFAULT_QUALITY_INCIDENT_OK_RATE),
  /** A day whose provider usage is more than this percent above ours raises an alert (reconciliation). */
  UPSTREAM_DRIFT_ALERT_PERCENT: z.coerce.number().min(0).max(1000).default(3),
  /** The IP-echo page a customer's line test fetches through the gateway. */
  PROXY_CHECK_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).default(DEFAULT_UPSTREAM_CHECK_URL)),
  /** host:port where the server reaches the gateway for a line test (default: the public endpoint, or localhost:GATEWAY_PORT without a public host). */
  PROXY_CHECK_GATEWAY: optionalString.pipe(
    z
      .string()
      .regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:/@[\]]+):\d{1,5}$/, 'PROXY_CHECK_GATEWAY must be host:port')
      .optional(),
  ),
  /** Percent of a referred user's paid crypto order (its GB) the referrer earns. */
  REFERRAL_PERCENT: z.coerce.number().int().min(0).max(100).default(10),
  /** Days a referral earning stays pending (a refund within them cancels it); 0 credits it with the order. */
  REFERRAL_PENDING_DAYS: z.coerce.number().int().min(0).max(365).default(14),
});

export type ServerEnv = ReturnType<typeof loadEnv>;

/**
 * The only reader of process.env for the server. Development fills unset secrets from
 * DATA_DIR/dev-secrets.json; production refuses to start without real ones.
 */
export function loadEnv(source: NodeJS.ProcessEnv = process.env) {
  const env = parseEnv(schema, source);
  const production = env.NODE_ENV === 'production';
  const dataDir = resolve(env.DATA_DIR);
  const missing: string[] = [];
  const secret = (name: 'APP_SECRET' | 'INTERNAL_API_KEY' | 'TELEGRAM_WEBHOOK_SECRET', value: string | undefined) => {
    if (value) {
      if (production && value.length < 32) missing.push(`${name} (at least 32 characters)`);
      return value;
    }
    if (production) {
      missing.push(name);
      return '';
    }
    return devSecret(dataDir, name);
  };
  const appSecret = secret('APP_SECRET', env.APP_SECRET);
  const internalApiKey = secret('INTERNAL_API_KEY', env.INTERNAL_API_KEY);
  // Only a bot needs it: without a token nothing is generated or required.
  const telegramWebhookSecret = env.TELEGRAM_BOT_TOKEN ? secret('TELEGRAM_WEBHOOK_SECRET', env.TELEGRAM_WEBHOOK_SECRET) : null;
  if (production) {
    if (!env.ADMIN_PASSWORD) missing.push('ADMIN_PASSWORD');
    if (!env.PUBLIC_URL) missing.push('PUBLIC_URL');
    if (env.PAYMENT_PROVIDER === 'sandbox') missing.push('PAYMENT_PROVIDER (the sandbox provider is disabled in production)');
  }
  // Signs daily statements: a new key in production would break every customer's check of the past.
  let statementSigningKey = env.STATEMENT_SIGNING_KEY ?? '';
  if (!statementSigningKey) {
    if (production) missing.push('STATEMENT_SIGNING_KEY');
    else statementSigningKey = devSecret(dataDir, 'STATEMENT_SIGNING_KEY', newStatementSigningKey);
  }
  if (statementSigningKey) parseStatementSigningKey(statementSigningKey);
  if (env.PAYMENT_PROVIDER === 'nowpayments' && (!env.NOWPAYMENTS_API_KEY || !env.NOWPAYMENTS_IPN_SECRET)) {
    missing.push('NOWPAYMENTS_API_KEY and NOWPAYMENTS_IPN_SECRET (PAYMENT_PROVIDER=nowpayments)');
  }
  if (missing.length) throw new Error(`Refusing to start: set ${missing.join(', ')}`);
  return {
    ...env,
    production,
    dataDir,
    appSecret,
    internalApiKey,
    telegram:
      env.TELEGRAM_BOT_TOKEN && telegramWebhookSecret
        ? { token: env.TELEGRAM_BOT_TOKEN, webhookSecret: telegramWebhookSecret, apiRoot: env.TELEGRAM_API_ROOT }
        : null,
    statementSigningKey,
    publicUrl: env.PUBLIC_URL ?? `http://localhost:${env.PORT}`,
    logPretty: logFormatFor(env.LOG_FORMAT, production) === 'pretty',
  };
}
