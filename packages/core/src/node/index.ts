export * from './dev-secrets';
export * from './env';
