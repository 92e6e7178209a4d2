/** Admin and tRPC clients and the ledger check now live in the shared test kit. */
export { ADMIN_PASSWORD, ADMIN_USERNAME, adminClient, expectLedgerOk, internalClient, sessionClient, trpcClient } from '@proxyhub/testing';
