import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import {
  devSecret,
  envBool as bool,
  envEntryPorts,
  envLogFormat,
  envOptionalString as optionalString,
  isLoopbackAddress,
  logFormatFor,
  parseEnv,
} from '@proxyhub/core/node';

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  GATEWAY_HOST: z.string().default('0.0.0.0'),
  /** /metrics, /health and /ready on their own port; 0 or off: none. */
  GATEWAY_METRICS_PORT: z
    .union([z.literal('off'), z.coerce.number().int().min(0).max(65535)])
    .default(3002)
    .transform((v) => (v === 'off' || v === 0 ? null : v)),
  GATEWAY_SERVER_URL: optionalString.pipe(z.url().optional()),
  INTERNAL_API_KEY: optionalString,
  GATEWAY_UPSTREAM_URL: optionalString.pipe(z.url().optional()),
  GATEWAY_ALLOW_PRIVATE: bool,
  /** Ports listened on beside GATEWAY_PORT for password-less entry port profiles (`from-to`, at most 100; `off`: none). */
  GATEWAY_ENTRY_PORTS: envEntryPorts,
  /** Where people top up and find their credentials: named in the gateway's refusals. */
  PUBLIC_URL: optionalString.pipe(z.url().optional()),
  GATEWAY_ID: optionalString,
  DATA_DIR: z.string().default('.data'),
  /** The usage journal lives here (default DATA_DIR/gateway); keep it on a disk that survives restarts. */
  GATEWAY_STATE_DIR: optionalString,
  /** Seconds of an account's observed traffic per lease: what a vanished gateway can leave unbilled, and how long tunnels run on while the server is away. */
  GATEWAY_LEASE_SECONDS: z.coerce.number().min(1).max(60).default(10),
  /** 0: no connection log (records are neither made nor reported); on unless set to 0. */
  GATEWAY_CONNECTION_LOG: z
    .enum(['0', '1', 'true', 'false', ''])
    .optional()
    .transform((v) => v !== '0' && v !== 'false'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: envLogFormat,
});

export type GatewayEnv = ReturnType<typeof loadEnv>;

/**
 * The only reader of process.env for the gateway. In development an unset INTERNAL_API_KEY comes
 * from DATA_DIR/dev-secrets.json, exactly as the server reads it, so the two processes agree.
 */
export function loadEnv(source: NodeJS.ProcessEnv = process.env) {
  const env = parseEnv(schema, source);
  const production = env.NODE_ENV === 'production';
  const dataDir = resolve(env.DATA_DIR);
  let internalApiKey = env.INTERNAL_API_KEY;
  if (!internalApiKey) {
    if (production) throw new Error('Refusing to start: set INTERNAL_API_KEY');
    internalApiKey = devSecret(dataDir, 'INTERNAL_API_KEY');
  }
  if (env.GATEWAY_UPSTREAM_URL && !/^(http|socks5h?):$/.test(new URL(env.GATEWAY_UPSTREAM_URL).protocol)) {
    throw new Error('GATEWAY_UPSTREAM_URL must be an http:// or socks5:// URL');
  }
  const entry = env.GATEWAY_ENTRY_PORTS;
  for (const [name, port] of [
    ['GATEWAY_PORT', env.GATEWAY_PORT],
    ['GATEWAY_METRICS_PORT', env.GATEWAY_METRICS_PORT],
  ] as const) {
    if (entry && port !== null && port >= entry.from && port <= entry.to)
      throw new Error(`${name} ${port} is inside GATEWAY_ENTRY_PORTS (${entry.from}-${entry.to}): choose another port or range`);
  }
  const stateDir = env.GATEWAY_STATE_DIR ? resolve(env.GATEWAY_STATE_DIR) : resolve(dataDir, 'gateway');
  return {
    production,
    port: env.GATEWAY_PORT,
    host: env.GATEWAY_HOST,
    metricsPort: env.GATEWAY_METRICS_PORT,
    serverUrl: env.GATEWAY_SERVER_URL ?? `http://127.0.0.1:${env.PORT}`,
    internalApiKey,
    upstreamUrl: env.GATEWAY_UPSTREAM_URL,
    allowPrivate: env.GATEWAY_ALLOW_PRIVATE,
    entryPorts: env.GATEWAY_ENTRY_PORTS,
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    gatewayId: env.GATEWAY_ID ?? defaultGatewayId(stateDir, env.GATEWAY_PORT),
    dataDir,
    stateDir,
    /** GATEWAY_ID was set (nothing to remember). */
    gatewayIdChosen: env.GATEWAY_ID !== undefined,
    leaseSeconds: env.GATEWAY_LEASE_SECONDS,
    connectionLog: env.GATEWAY_CONNECTION_LOG,
    logLevel: env.LOG_LEVEL,
    logPretty: logFormatFor(env.LOG_FORMAT, production) === 'pretty',
  };
}

/**
 * The default gateway id is host name + port as first chosen, kept in the state directory
 * (rememberGatewayId, at start) so a new host name (a re-created container) does not orphan the
 * usage journal and the leases of the id it ran under. One file per port, so gateways on one
 * machine sharing the directory stay apart.
 */
function defaultGatewayId(stateDir: string, port: number): string {
  try {
    const id = readFileSync(gatewayIdFile(stateDir, port), 'utf8').trim();
    if (id) return id;
  } catch {
    // first start
  }
  return `${hostname()}:${port}`;
}

const gatewayIdFile = (stateDir: string, port: number) => join(stateDir, `gateway-id-${port}`);

/**
 * The warning printed at start when private egress is on while the gateway listens beyond loopback:
 * then anyone with valid credentials who reaches the port reaches this machine's private network.
 */
export function privateEgressWarning(env: { allowPrivate: boolean; host: string }): string | null {
  if (!env.allowPrivate || isLoopbackAddress(env.host) || env.host === 'localhost') return null;
  return `GATEWAY_ALLOW_PRIVATE=1 while listening on ${env.host}: anyone with valid proxy credentials who reaches this port can reach this machine's private network (127.0.0.1, 10.0.0.0/8, 192.168.0.0/16, ...). Set GATEWAY_HOST=127.0.0.1 for local testing, or turn GATEWAY_ALLOW_PRIVATE off.`;
}

export function rememberGatewayId(env: GatewayEnv): void {
  if (env.gatewayIdChosen) return;
  mkdirSync(env.stateDir, { recursive: true });
  writeFileSync(gatewayIdFile(env.stateDir, env.port), `${env.gatewayId}\n`, { flag: 'w' });
}

/** Node flags the relay process runs with (see main.ts). */
export const RELAY_NODE_FLAGS = ['--initial-old-space-size=64'];

/**
 * The environment and flags to re-start the gateway with, once: glibc reads its allocator
 * settings from the environment at process start only, and V8 its initial heap limits from flags.
 * Null in the re-started process itself.
 */
export function tunedLaunch(source: NodeJS.ProcessEnv = process.env): { env: NodeJS.ProcessEnv; nodeFlags: string[] } | null {
  if (source.PROXYHUB_GATEWAY_CHILD === '1') return null;
  return {
    env: { ...source, PROXYHUB_GATEWAY_CHILD: '1', MALLOC_TOP_PAD_: String(64 * 1024 * 1024), MALLOC_TRIM_THRESHOLD_: String(256 * 1024 * 1024) },
    nodeFlags: RELAY_NODE_FLAGS,
  };
}
