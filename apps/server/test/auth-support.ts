/** The account-flow tests' tools (tRPC, raw HTTP, row readers, fakes) now live in the shared test kit. */
export * from '@proxyhub/testing';
