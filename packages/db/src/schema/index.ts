export * from './credits';
export * from './proxies';
export * from './users';
export * from './audit';
export * from './network';
export * from './webhooks';
export * from './promotions';
export * from './telegram';
