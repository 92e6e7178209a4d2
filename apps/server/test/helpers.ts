/** The shared test kit (@proxyhub/testing), bound to this app's server for the server's own tests. */
import { testServerStarter, type TestServer as KitTestServer } from '@proxyhub/testing';
import { createServer, type ServerParts } from '../src/server';

export * from '@proxyhub/testing';

export type TestServer = KitTestServer<ServerParts>;

export const startTestServer = testServerStarter(createServer);
