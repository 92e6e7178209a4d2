export * from './dev-secrets';
