// The server itself, loaded by main.ts once it watches its parent.
import { prettyStdout, stopOnSignals } from '@proxyhub/core/node';
import { createDb } from '@proxyhub/db';
import { defaultWebDistDir } from './app';
import { apiConfigFromEnv } from './config';
import { loadEnv } from './env';
import { createServer } from './server';

const env = loadEnv();
const database = await createDb({ databaseUrl: env.DATABASE_URL, dataDir: `${env.dataDir}/pglite` });
await database.migrate();
const server = await createServer({
  config: apiConfigFromEnv(env),
  database,
  smtpUrl: env.SMTP_URL,
  mailFrom: env.MAIL_FROM,
  redisUrl: env.REDIS_URL,
  redisKeyPrefix: env.REDIS_KEY_PREFIX,
  logLevel: env.LOG_LEVEL,
  ...(env.logPretty ? { logDestination: prettyStdout() } : {}),
  trustProxy: env.TRUST_PROXY,
  webDistDir: env.WEB_DIST_DIR ?? defaultWebDistDir(),
  admin: { username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD },
  backgroundJobs: true,
  processMetrics: true,
  telegram: env.telegram,
});
await server.app.listen({ host: env.HOST, port: env.PORT });
server.logger.info({ url: env.publicUrl, database: database.driver, payments: env.PAYMENT_PROVIDER }, 'ProxyHub server ready');

stopOnSignals(() => server.close(), { forceAfterMs: 10_000, logger: server.logger, message: 'shutting down' });
