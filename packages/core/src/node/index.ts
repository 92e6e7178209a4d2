export * from './dev-secrets';
export * from './env';
export * from './parent-watch';
export * from './shutdown';
export * from './log-format';
export * from './metrics-access';
export * from './upstream-dial';
export * from './statement-key';
