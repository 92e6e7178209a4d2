export * from './dev-secrets';
export * from './env';
export * from './parent-watch';
