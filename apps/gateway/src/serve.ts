import { prettyStdout, stopOnSignals } from '@proxyhub/core/node';
import { createBackend } from './backend';
import { loadEnv, privateEgressWarning, rememberGatewayId } from './env';
import { createGateway } from './gateway';
import { UsageJournal } from './report/journal';
import { replayUsageJournal } from './report/replay';
import { createLogger } from './log';
import { startMetricsServer } from './metrics-server';

const env = loadEnv();
const out = env.logPretty ? prettyStdout() : process.stdout;
const logger = createLogger(env.logLevel, (line) => void out.write(line));
rememberGatewayId(env);
const backend = createBackend(env.serverUrl, env.internalApiKey);
// Usage an earlier run could not deliver (a crash, or a server that was away) is billed before
// this run takes traffic.
const journal = UsageJournal.open(env.stateDir, env.gatewayId, logger);
await replayUsageJournal(journal, backend, logger);
const gateway = createGateway({
  gatewayId: env.gatewayId,
  backend,
  internalApiKey: env.internalApiKey,
  sessionSecret: env.internalApiKey,
  allowPrivate: env.allowPrivate,
  entryPorts: env.entryPorts,
  upstreamUrl: env.upstreamUrl,
  publicUrl: env.publicUrl,
  logger,
  releaseStaleLeases: true,
  meter: { journal, leaseSeconds: env.leaseSeconds, connectionLog: env.connectionLog },
});
const addr = await gateway.listen(env.port, env.host);
logger.info(
  {
    port: addr.port,
    host: env.host,
    server: env.serverUrl,
    gatewayId: env.gatewayId,
    egress: env.upstreamUrl ? 'upstream' : 'direct',
    allowPrivate: env.allowPrivate,
    entryPorts: env.entryPorts ? `${env.entryPorts.from}-${env.entryPorts.to}` : 'off',
    journal: journal.path,
  },
  'ProxyHub gateway ready (HTTP, CONNECT and SOCKS5 on one port)',
);
const exposed = privateEgressWarning(env);
if (exposed) logger.warn({ host: env.host }, exposed);

// Metrics are not worth the relay: a port already taken is logged, and the gateway goes on.
const metrics =
  env.metricsPort === null
    ? null
    : await startMetricsServer(gateway, { port: env.metricsPort, host: env.host, internalApiKey: env.internalApiKey, serverUrl: env.serverUrl }).then(
        (m) => {
          logger.info({ port: m.port }, 'gateway metrics on /metrics, readiness on /ready');
          return m;
        },
        (err: unknown) => {
          logger.error({ err, port: env.metricsPort }, 'gateway metrics listener failed to start; relaying without it');
          return null;
        },
      );

stopOnSignals(() => Promise.all([gateway.close(5000), metrics?.close()]).then(() => undefined), {
  forceAfterMs: 15_000,
  logger,
  message: 'shutting down: returning unused leases',
});
