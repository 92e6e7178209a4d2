import { resolve } from 'node:path';
import { DEFAULT_RATE_LIMITS, type ApiConfig } from '@proxyhub/api';
import { PRODUCTION_GATEWAY_PORT } from '@proxyhub/core';
import type { ServerEnv } from './env';

/** Where the server dials the gateway for a line test: PROXY_CHECK_GATEWAY, the public endpoint, or the gateway beside it. */
function proxyCheckGateway(env: ServerEnv, publicPort: number): { host: string; port: number } {
  if (env.PROXY_CHECK_GATEWAY) {
    const i = env.PROXY_CHECK_GATEWAY.lastIndexOf(':');
    return { host: env.PROXY_CHECK_GATEWAY.slice(0, i), port: Number(env.PROXY_CHECK_GATEWAY.slice(i + 1)) };
  }
  return env.GATEWAY_PUBLIC_HOST ? { host: env.GATEWAY_PUBLIC_HOST, port: publicPort } : { host: '127.0.0.1', port: env.GATEWAY_PORT };
}

export function apiConfigFromEnv(env: ServerEnv): ApiConfig {
  const publicPort = env.GATEWAY_PUBLIC_PORT ?? (env.production ? PRODUCTION_GATEWAY_PORT : env.GATEWAY_PORT);
  return {
    production: env.production,
    publicUrl: env.publicUrl,
    adminRequire2fa: env.ADMIN_REQUIRE_2FA,
    gatewayDownAfterMs: env.GATEWAY_DOWN_AFTER_SECONDS * 1000,
    connectionLogDays: env.CONNECTION_LOG_DAYS,
    defaultUpstream: Boolean(env.GATEWAY_UPSTREAM_URL),
    dataDir: env.dataDir,
    appSecret: env.appSecret,
    internalApiKey: env.internalApiKey,
    statementSigningKey: env.statementSigningKey,
    gateway: {
      publicHost: env.GATEWAY_PUBLIC_HOST ?? null,
      publicPort,
      entryPorts: env.GATEWAY_ENTRY_PORTS,
    },
    proxyCheck: { url: env.PROXY_CHECK_URL, gateway: proxyCheckGateway(env, publicPort) },
    google:
      env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET
        ? {
            clientId: env.GOOGLE_CLIENT_ID,
            clientSecret: env.GOOGLE_CLIENT_SECRET,
            ...(env.GOOGLE_AUTH_URL ? { authorizationEndpoint: env.GOOGLE_AUTH_URL } : {}),
            ...(env.GOOGLE_TOKEN_URL ? { tokenEndpoint: env.GOOGLE_TOKEN_URL } : {}),
          }
        : null,
    payments: {
      provider: env.PAYMENT_PROVIDER,
      nowpayments:
        env.NOWPAYMENTS_API_KEY && env.NOWPAYMENTS_IPN_SECRET
          ? { apiUrl: env.NOWPAYMENTS_API_URL, apiKey: env.NOWPAYMENTS_API_KEY, ipnSecret: env.NOWPAYMENTS_IPN_SECRET }
          : null,
    },
    rateLimits: DEFAULT_RATE_LIMITS,
    upstreams: {
      allowPrivate: env.GATEWAY_ALLOW_PRIVATE,
      checkUrl: env.UPSTREAM_CHECK_URL,
      balanceMinutes: env.UPSTREAM_BALANCE_MINUTES,
      driftAlertPercent: env.UPSTREAM_DRIFT_ALERT_PERCENT,
    },
    quality: { probeMinutes: env.QUALITY_PROBE_MINUTES, incidentOkRate: env.QUALITY_INCIDENT_OK_RATE },
    referrals: { percent: env.REFERRAL_PERCENT, pendingDays: env.REFERRAL_PENDING_DAYS },
    ...(env.CONTENT_DIR ? { contentDir: resolve(env.CONTENT_DIR) } : {}),
  };
}
