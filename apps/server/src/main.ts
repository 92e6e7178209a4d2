import { exitWithParent } from '@proxyhub/core/node';
import { createDb } from '@proxyhub/db';
import { defaultWebDistDir } from './app';
import { apiConfigFromEnv } from './config';
import { loadEnv } from './env';
import { createServer } from './server';

exitWithParent();
const env = loadEnv();
const database = await createDb({ databaseUrl: env.DATABASE_URL, dataDir: `${env.dataDir}/pglite` });
await database.migrate();
const server = await createServer({
  config: apiConfigFromEnv(env),
  database,
  smtpUrl: env.SMTP_URL,
  mailFrom: env.MAIL_FROM,
  redisUrl: env.REDIS_URL,
  logLevel: env.LOG_LEVEL,
  trustProxy: env.TRUST_PROXY,
  webDistDir: env.WEB_DIST_DIR ?? defaultWebDistDir(),
  admin: { username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD },
  backgroundJobs: true,
});
await server.app.listen({ host: env.HOST, port: env.PORT });
server.logger.info({ url: env.publicUrl, database: database.driver, payments: env.PAYMENT_PROVIDER }, 'ProxyHub server ready');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000).unref();
    server.close().then(
      () => {
        clearTimeout(force);
        process.exit(0);
      },
      (err: unknown) => {
        server.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
