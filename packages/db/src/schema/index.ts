export * from './credits';
export * from './proxies';
export * from './users';
