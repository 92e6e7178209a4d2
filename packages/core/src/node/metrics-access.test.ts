import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, metricsAccess } from './metrics-access';

const KEY = 'internal-key-0123456789abcdef0123';

describe('metrics access', () => {
  it('lets loopback in without a key, in every spelling of loopback', () => {
    for (const a of ['127.0.0.1', '127.3.4.5', '::1', '::ffff:127.0.0.1']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['10.0.0.1', '::ffff:10.0.0.1', '1270.0.0.1', '::2', '', undefined]) expect(isLoopbackAddress(a), String(a)).toBe(false);
    expect(metricsAccess({ peer: '::1', client: '::1', authorization: undefined }, KEY)).toBe('allowed');
  });

  it('asks others for the internal key and refuses a wrong one', () => {
    const remote = { peer: '203.0.113.9', client: '203.0.113.9' };
    expect(metricsAccess({ ...remote, authorization: undefined }, KEY)).toBe('unauthenticated');
    expect(metricsAccess({ ...remote, authorization: `Bearer ${KEY}x` }, KEY)).toBe('forbidden');
    expect(metricsAccess({ ...remote, authorization: `Basic ${KEY}` }, KEY)).toBe('forbidden');
    expect(metricsAccess({ ...remote, authorization: `Bearer ${KEY}` }, KEY)).toBe('allowed');
    expect(metricsAccess({ ...remote, authorization: 'Bearer ' }, '')).toBe('forbidden');
  });

  it('needs both the socket and the forwarded client on loopback', () => {
    expect(metricsAccess({ peer: '127.0.0.1', client: '198.51.100.7', authorization: undefined }, KEY)).toBe('unauthenticated');
    expect(metricsAccess({ peer: '198.51.100.7', client: '127.0.0.1', authorization: undefined }, KEY)).toBe('unauthenticated');
  });
});
