import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiConfigFromEnv } from '../src/config';
import { newStatementSigningKey, prettyLogLine } from '@proxyhub/core/node';
import { loadEnv } from '../src/env';

const tempDir = () => mkdtempSync(join(tmpdir(), 'proxyhub-env-'));
const SECRET = 'a'.repeat(40);
const PRODUCTION_OK = {
  NODE_ENV: 'production',
  APP_SECRET: SECRET,
  INTERNAL_API_KEY: `k${SECRET}`,
  ADMIN_PASSWORD: 'Admin-Password-1',
  PUBLIC_URL: 'https://proxyhub.example',
  PAYMENT_PROVIDER: 'nowpayments',
  NOWPAYMENTS_API_KEY: 'np-key',
  NOWPAYMENTS_IPN_SECRET: 'np-ipn',
  STATEMENT_SIGNING_KEY: newStatementSigningKey(),
};

describe('loadEnv in production', () => {
  it('refuses to start without secrets, naming every missing one', () => {
    expect(() => loadEnv({ NODE_ENV: 'production', DATA_DIR: tempDir() })).toThrowError(
      /^Refusing to start: set APP_SECRET, INTERNAL_API_KEY, ADMIN_PASSWORD, PUBLIC_URL, PAYMENT_PROVIDER/,
    );
  });

  it('treats empty values (KEY= copied from .env.example) as missing', () => {
    expect(() => loadEnv({ ...PRODUCTION_OK, APP_SECRET: '', DATA_DIR: tempDir() })).toThrowError(/set APP_SECRET$/);
  });

  it('refuses to start without a statement signing key, or with one that is not Ed25519', () => {
    expect(() => loadEnv({ ...PRODUCTION_OK, STATEMENT_SIGNING_KEY: '', DATA_DIR: tempDir() })).toThrowError(/set STATEMENT_SIGNING_KEY$/);
    expect(() => loadEnv({ ...PRODUCTION_OK, STATEMENT_SIGNING_KEY: 'bm90IGEga2V5', DATA_DIR: tempDir() })).toThrowError(
      /STATEMENT_SIGNING_KEY must be an Ed25519 private key/,
    );
  });

  it('refuses short secrets', () => {
    expect(() => loadEnv({ ...PRODUCTION_OK, APP_SECRET: 'short', DATA_DIR: tempDir() })).toThrowError(/APP_SECRET \(at least 32 characters\)/);
  });

  it('refuses the sandbox payment provider and nowpayments without its keys', () => {
    expect(() => loadEnv({ ...PRODUCTION_OK, PAYMENT_PROVIDER: 'sandbox', DATA_DIR: tempDir() })).toThrowError(/sandbox provider is disabled in production/);
    expect(() => loadEnv({ ...PRODUCTION_OK, NOWPAYMENTS_IPN_SECRET: undefined, DATA_DIR: tempDir() })).toThrowError(
      /NOWPAYMENTS_API_KEY and NOWPAYMENTS_IPN_SECRET/,
    );
  });

  it('starts with everything set, and generates no secret of its own', () => {
    const dir = tempDir();
    const env = loadEnv({ ...PRODUCTION_OK, DATA_DIR: dir });
    expect(env).toMatchObject({ production: true, appSecret: SECRET, publicUrl: 'https://proxyhub.example' });
    expect(() => statSync(join(dir, 'dev-secrets.json'))).toThrow();
    const config = apiConfigFromEnv(env);
    expect(config.production).toBe(true);
    expect(config.gateway.publicPort).toBe(8080);
    expect(config.google).toBeNull();
  });
});

describe('loadEnv in development', () => {
  it('fills missing secrets once, keeps them in DATA_DIR/dev-secrets.json (0600), reuses them', () => {
    const dir = tempDir();
    const a = loadEnv({ DATA_DIR: dir });
    expect(a.production).toBe(false);
    expect(a.appSecret.length).toBeGreaterThanOrEqual(32);
    expect(a.internalApiKey.length).toBeGreaterThanOrEqual(32);
    expect(a.appSecret).not.toBe(a.internalApiKey);
    const file = join(dir, 'dev-secrets.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ APP_SECRET: a.appSecret, INTERNAL_API_KEY: a.internalApiKey });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const b = loadEnv({ DATA_DIR: dir });
    expect(b.appSecret).toBe(a.appSecret);
    expect(b.statementSigningKey).toBe(a.statementSigningKey);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ STATEMENT_SIGNING_KEY: a.statementSigningKey });
    expect(a.publicUrl).toBe('http://localhost:3000');
    expect(apiConfigFromEnv(a).gateway.publicPort).toBe(3001);
  });

  it('uses given secrets as they are', () => {
    const env = loadEnv({ DATA_DIR: tempDir(), APP_SECRET: 'dev-secret-given-0123456789', PORT: '4000' });
    expect(env.appSecret).toBe('dev-secret-given-0123456789');
    expect(env.publicUrl).toBe('http://localhost:4000');
  });

  it('explains invalid values', () => {
    expect(() => loadEnv({ DATA_DIR: tempDir(), PORT: 'eighty' })).toThrowError(/^Invalid environment:\n {2}PORT: /);
    expect(() => loadEnv({ DATA_DIR: tempDir(), PUBLIC_URL: 'not a url' })).toThrowError(/PUBLIC_URL/);
    expect(() => loadEnv({ DATA_DIR: tempDir(), LOG_LEVEL: 'loud' })).toThrowError(/LOG_LEVEL/);
  });

  it('turns Google on only with both id and secret, with optional endpoints for tests', () => {
    const base = { DATA_DIR: tempDir() };
    expect(apiConfigFromEnv(loadEnv({ ...base, GOOGLE_CLIENT_ID: 'id' })).google).toBeNull();
    expect(
      apiConfigFromEnv(loadEnv({ ...base, GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 's', GOOGLE_TOKEN_URL: 'http://127.0.0.1:9/token' })).google,
    ).toEqual({
      clientId: 'id',
      clientSecret: 's',
      tokenEndpoint: 'http://127.0.0.1:9/token',
    });
  });

  it("sends line tests to PROXY_CHECK_URL through PROXY_CHECK_GATEWAY, else the gateway's public endpoint, else the one beside it", () => {
    const base = { DATA_DIR: tempDir() };
    expect(apiConfigFromEnv(loadEnv(base)).proxyCheck).toEqual({ url: 'https://api.ipify.org/?format=json', gateway: { host: '127.0.0.1', port: 3001 } });
    expect(apiConfigFromEnv(loadEnv({ ...base, GATEWAY_PUBLIC_HOST: 'proxy.example', GATEWAY_PUBLIC_PORT: '8080' })).proxyCheck?.gateway).toEqual({
      host: 'proxy.example',
      port: 8080,
    });
    const set = apiConfigFromEnv(
      loadEnv({ ...base, PROXY_CHECK_URL: 'http://127.0.0.1:9/ip', PROXY_CHECK_GATEWAY: '[::1]:3001', GATEWAY_PUBLIC_HOST: 'x.example' }),
    );
    expect(set.proxyCheck).toEqual({ url: 'http://127.0.0.1:9/ip', gateway: { host: '[::1]', port: 3001 } });
    expect(() => loadEnv({ ...base, PROXY_CHECK_GATEWAY: 'gateway' })).toThrowError(/PROXY_CHECK_GATEWAY must be host:port/);
    expect(() => loadEnv({ ...base, PROXY_CHECK_URL: 'ftp://x.example/' })).toThrowError(/PROXY_CHECK_URL/);
  });
});

describe('UPSTREAM_CHECK_URL', () => {
  it("is the page an admin's upstream test fetches by default: a public IP-echo page unless set; an http(s) address otherwise, or refused naming it", () => {
    const base = { DATA_DIR: tempDir() };
    expect(apiConfigFromEnv(loadEnv(base)).upstreams?.checkUrl).toBe('https://api.ipify.org/?format=json');
    expect(apiConfigFromEnv(loadEnv({ ...base, UPSTREAM_CHECK_URL: 'http://127.0.0.1:9/ip' })).upstreams?.checkUrl).toBe('http://127.0.0.1:9/ip');
    expect(() => loadEnv({ ...base, UPSTREAM_CHECK_URL: 'ftp://x.example/' })).toThrowError(/UPSTREAM_CHECK_URL/);
  });
});

describe('log format', () => {
  it('readable lines in development, JSON in production, LOG_FORMAT chooses; a bad value is named', () => {
    expect(loadEnv({ DATA_DIR: tempDir() }).logPretty).toBe(true);
    expect(loadEnv({ ...PRODUCTION_OK, DATA_DIR: tempDir() }).logPretty).toBe(false);
    expect(loadEnv({ LOG_FORMAT: 'json', DATA_DIR: tempDir() }).logPretty).toBe(false);
    expect(loadEnv({ ...PRODUCTION_OK, LOG_FORMAT: 'pretty', DATA_DIR: tempDir() }).logPretty).toBe(true);
    expect(() => loadEnv({ LOG_FORMAT: 'xml', DATA_DIR: tempDir() })).toThrowError(/LOG_FORMAT must be pretty or json/);
  });

  it('a readable line has the time, the level, the message and the fields, not JSON', () => {
    const line = prettyLogLine({ colorize: false })(
      `${JSON.stringify({ level: 30, time: Date.UTC(2026, 0, 1, 12, 34, 56), msg: 'ProxyHub server ready', url: 'http://localhost:3000' })}\n`,
    );
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: ProxyHub server ready {"url":"http:\/\/localhost:3000"}\n$/);
  });
});

describe('Telegram settings', () => {
  it('no token: no bot and no webhook secret generated', () => {
    const dir = tempDir();
    expect(loadEnv({ DATA_DIR: dir }).telegram).toBeNull();
    expect(JSON.parse(readFileSync(join(dir, 'dev-secrets.json'), 'utf8'))).not.toHaveProperty('TELEGRAM_WEBHOOK_SECRET');
  });

  it('development generates the webhook secret once and keeps it; the API root defaults to the public Bot API', () => {
    const dir = tempDir();
    const a = loadEnv({ DATA_DIR: dir, TELEGRAM_BOT_TOKEN: '1:abc' });
    expect(a.telegram).toMatchObject({ token: '1:abc', apiRoot: 'https://api.telegram.org' });
    expect(a.telegram!.webhookSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(loadEnv({ DATA_DIR: dir, TELEGRAM_BOT_TOKEN: '1:abc' }).telegram!.webhookSecret).toBe(a.telegram!.webhookSecret);
    expect(loadEnv({ DATA_DIR: dir, TELEGRAM_BOT_TOKEN: '1:abc', TELEGRAM_API_ROOT: 'http://127.0.0.1:9' }).telegram!.apiRoot).toBe('http://127.0.0.1:9');
  });

  it("production requires a webhook secret of at least 32 characters with a token, in Telegram's alphabet", () => {
    expect(() => loadEnv({ ...PRODUCTION_OK, TELEGRAM_BOT_TOKEN: '1:abc', DATA_DIR: tempDir() })).toThrowError(/set TELEGRAM_WEBHOOK_SECRET$/);
    expect(() => loadEnv({ ...PRODUCTION_OK, TELEGRAM_BOT_TOKEN: '1:abc', TELEGRAM_WEBHOOK_SECRET: 'short', DATA_DIR: tempDir() })).toThrowError(
      /TELEGRAM_WEBHOOK_SECRET \(at least 32 characters\)/,
    );
    expect(() => loadEnv({ ...PRODUCTION_OK, TELEGRAM_BOT_TOKEN: '1:abc', TELEGRAM_WEBHOOK_SECRET: `${'a'.repeat(32)}!`, DATA_DIR: tempDir() })).toThrowError(
      /TELEGRAM_WEBHOOK_SECRET/,
    );
    const env = loadEnv({ ...PRODUCTION_OK, TELEGRAM_BOT_TOKEN: '1:abc', TELEGRAM_WEBHOOK_SECRET: 'b'.repeat(32), DATA_DIR: tempDir() });
    expect(env.telegram).toMatchObject({ token: '1:abc', webhookSecret: 'b'.repeat(32) });
  });
});
