export * from './credentials';
export * from './crypto';
export * from './google';
export * from './password';
export * from './sessions';
