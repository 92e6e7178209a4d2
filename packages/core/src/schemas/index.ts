export * from './auth';
export * from './credits';
export * from './fields';
export * from './gateway';
export * from './proxies';
export * from './alerts';
export * from './two-factor';
export * from './billing';
