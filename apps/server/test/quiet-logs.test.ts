/**
 * The gateways' polling (every request with the internal key) is written at debug level, so at the
 * default info level a person's requests and the demo's banner are what the log holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERNAL_KEY, startTestServer, type TestServer } from './helpers';

function capture() {
  const lines: Array<{ level: number; msg: string; req?: { url: string }; reqId?: string }> = [];
  return { lines, write: (s: string) => void lines.push(JSON.parse(s) as (typeof lines)[number]) };
}
const INFO = 30;
const DEBUG = 20;

describe('request logs of internal-key calls', () => {
  const info = capture();
  const debug = capture();
  let atInfo: TestServer;
  let atDebug: TestServer;
  beforeAll(async () => {
    atInfo = await startTestServer({ logDestination: info, logLevel: 'info' });
    atDebug = await startTestServer({ logDestination: debug, logLevel: 'debug' });
  });
  afterAll(async () => {
    await atInfo?.close();
    await atDebug?.close();
  });

  /** The lines of the request to `path`, by its reqId. */
  const linesOf = (log: ReturnType<typeof capture>, path: string) => {
    const ids = new Set(log.lines.filter((l) => l.req?.url === path).map((l) => l.reqId));
    return log.lines.filter((l) => l.reqId !== undefined && ids.has(l.reqId)).map((l) => ({ level: l.level, msg: l.msg }));
  };

  it('at info: a person’s request is logged, a gateway’s is not; at debug the gateway’s is, at debug level', async () => {
    for (const [server] of [[atInfo], [atDebug]] as const) {
      const gateway = server.client({ origin: null });
      gateway.bearer = INTERNAL_KEY;
      expect((await gateway.get('/trpc/gateway.endpoint')).status).toBeLessThan(500);
      expect((await gateway.get('/health?from=gateway')).status).toBe(200);
      expect((await server.client().get('/health?from=person')).status).toBe(200);
      // A wrong key is not the internal key: its lines stay at info.
      const guess = server.client({ origin: null });
      guess.bearer = 'not-the-key';
      expect((await guess.get('/health?from=guess')).status).toBe(200);
    }
    const completed = [
      { level: INFO, msg: 'incoming request' },
      { level: INFO, msg: 'request completed' },
    ];
    expect(linesOf(info, '/health?from=person')).toEqual(completed);
    expect(linesOf(info, '/health?from=guess')).toEqual(completed);
    expect(linesOf(info, '/health?from=gateway')).toEqual([]);
    expect(info.lines.some((l) => l.req?.url.startsWith('/trpc/gateway.'))).toBe(false);

    expect(linesOf(debug, '/health?from=gateway')).toEqual([
      { level: DEBUG, msg: 'incoming request' },
      { level: DEBUG, msg: 'request completed' },
    ]);
    expect(linesOf(debug, '/health?from=person')).toEqual(completed);
  });
});
