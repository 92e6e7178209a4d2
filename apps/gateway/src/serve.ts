import { prettyStdout, stopOnSignals } from '@proxyhub/core/node';
import { createBackend } from './backend';
import { loadEnv, rememberGatewayId } from './env';
import { createGateway } from './gateway';
import { replayUsageJournal, UsageJournal } from './journal';
import { createLogger } from './log';

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
  allowPrivate: env.allowPrivate,
  upstreamUrl: env.upstreamUrl,
  publicUrl: env.publicUrl,
  logger,
  releaseStaleLeases: true,
  meter: { journal, leaseSeconds: env.leaseSeconds },
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
    journal: journal.path,
  },
  'ProxyHub gateway ready (HTTP, CONNECT and SOCKS5 on one port)',
);

stopOnSignals(() => gateway.close(5000), { forceAfterMs: 15_000, logger, message: 'shutting down: returning unused leases' });
