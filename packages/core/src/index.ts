export * from './constants';
export * from './errors';
export * from './html';
export * from './positions';
export * from './proxy-list';
export * from './proxy-username';
export * from './schemas';
export * from './units';
