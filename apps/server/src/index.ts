export { buildApp, defaultWebDistDir } from './app';
export { apiConfigFromEnv } from './config';
export { loadEnv } from './env';
export { createServer, type ServerParts } from './server';
export { startBackgroundJobs } from './lifecycle';
