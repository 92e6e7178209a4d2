/**
 * The shared test kit: what tests of every app use to start the real server, make users, read the
 * mail outbox, talk HTTP and tRPC, check the ledger, and drive traffic through a proxy.
 *
 * Dependencies point one way: apps depend on packages, never the reverse. The kit is a package, so
 * it does not import apps/server; an app's tests bind it to the server once,
 *   export const startTestServer = testServerStarter(createServer); // createServer: @proxyhub/server
 * (apps/server/test/helpers.ts, apps/gateway/test/helpers.ts, apps/web/e2e/harness.ts). The gateway
 * itself (createGateway) stays in apps/gateway/test/helpers.ts for the same reason.
 * packages/api's service tests sit below the kit (the kit uses @proxyhub/api), so they take their
 * databases from `createTestDb` of @proxyhub/db/testing, which the kit uses too and re-exports.
 */
export { createTestDb } from '@proxyhub/db/testing';
export { closeServer, freePortRange, listen, rawRequest, type RawResponse } from './net';
export {
  startFakeConnectProvider,
  startFakeGoogle,
  startFakeJsonApi,
  startSmtpSink,
  unsignedJwt,
  type FakeApiRequest,
  type FakeGoogle,
  type SmtpMessage,
} from './fakes';
export { HttpClient, type HttpResult } from './http-client';
export { addCredits, expectLedgerHolds, expectLedgerOk } from './ledger';
export { linkToken, readOutbox, type Mail } from './mail';
export {
  basic,
  connectTunnel,
  curl,
  exchangeUntilClosed,
  openFds,
  rawExchange,
  socketClosed,
  socksConnectWrites,
  startTarget,
  tunnelAnswered,
  tunnelOver,
  type CurlResult,
  type TargetConnection,
} from './proxy-traffic';
export { balances, hourlyUsage, userWithCredits, type ProxyUser } from './proxy-users';
export { expireTokens, proxyAccountRows, sessionRows, tokenRows, userRow } from './rows';
export {
  INTERNAL_KEY,
  RELAXED_LIMITS,
  testServerStarter,
  type ServerFactory,
  type ServerFactoryOptions,
  type ServerPartsLike,
  type TestServer,
  type TestServerInput,
  type TestServerOptions,
} from './server';
export { median } from './stats';
export { gatewayHeartbeat, internalClient, sessionClient, trpcClient, trpcFor } from './trpc';
export { ADMIN_PASSWORD, ADMIN_USERNAME, STRONG_PASSWORD, adminClient, signedInUser, uniqueEmail } from './users';
export { promSample } from './prometheus';
export * from './telegram';
export {
  FAKE_BRIGHTDATA_CENTS_PER_GB,
  FAKE_IPROYAL_HASH,
  FAKE_PACKAGE,
  fakeProviderTemplate,
  gbText,
  startFakeProvider,
  type FakeProvider,
  type FakeProviderName,
} from './fake-providers';
export { strippedKeys, watchOutputs, type OutputWatch } from './output-check';
