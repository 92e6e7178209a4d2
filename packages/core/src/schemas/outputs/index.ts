/**
 * What each procedure answers, one file per router (`<router><Procedure>Output`): the procedure
 * checks its answer with `.output(...)`, and the REST path over it documents the same schema (or
 * its reshaping) in the OpenAPI document. Bigints and dates are as tRPC sends them; REST sends
 * them as numbers and ISO strings.
 */
export * from './auth';
export * from './credits';
export * from './admin';
export * from './admin-alerts';
export * from './locations';
export * from './alerts';
export * from './billing';
export * from './usage';
export * from './proxy-accounts';
export * from './proxy-lines';
export * from './api-keys';
export * from './two-factor';
export * from './ip-allowlist';
export * from './webhooks';
export * from './gifts';
export * from './referrals';
export * from './telegram';
export * from './statements';
export * from './site';
export * from './plans';
export * from './status';
export * from './team';
