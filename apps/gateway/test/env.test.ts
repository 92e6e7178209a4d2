import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { devSecret } from '@proxyhub/core/node';
import { loadEnv, privateEgressWarning, rememberGatewayId, tunedLaunch } from '../src/env';
import { isPrivateAddress } from '../src/egress';

describe('gateway environment', () => {
  it('warns when private egress is on while listening beyond loopback, not otherwise', () => {
    expect(privateEgressWarning({ allowPrivate: true, host: '0.0.0.0' })).toContain('GATEWAY_ALLOW_PRIVATE=1 while listening on 0.0.0.0');
    expect(privateEgressWarning({ allowPrivate: true, host: '127.0.0.1' })).toBeNull();
    expect(privateEgressWarning({ allowPrivate: true, host: '::1' })).toBeNull();
    expect(privateEgressWarning({ allowPrivate: false, host: '0.0.0.0' })).toBeNull();
  });

  it('defaults to port 3001 beside the server on PORT, with the dev internal key the server uses', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-env-'));
    const env = loadEnv({ DATA_DIR: dir, PORT: '3100' });
    expect(env).toMatchObject({ port: 3001, host: '0.0.0.0', serverUrl: 'http://127.0.0.1:3100', allowPrivate: false, upstreamUrl: undefined });
    expect(env.internalApiKey).toBe(devSecret(dir, 'INTERNAL_API_KEY'));
    expect(env.gatewayId).toMatch(/:3001$/);
  });

  it('keeps the usage journal under DATA_DIR/gateway unless GATEWAY_STATE_DIR says where; leases of 10 s of traffic unless told', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-env-'));
    expect(loadEnv({ DATA_DIR: dir, GATEWAY_STATE_DIR: '' })).toMatchObject({ stateDir: join(dir, 'gateway'), leaseSeconds: 10 });
    expect(loadEnv({ DATA_DIR: dir, GATEWAY_STATE_DIR: join(dir, 'state'), GATEWAY_LEASE_SECONDS: '3' })).toMatchObject({
      stateDir: join(dir, 'state'),
      leaseSeconds: 3,
    });
    expect(() => loadEnv({ DATA_DIR: dir, GATEWAY_LEASE_SECONDS: '0' })).toThrow(/GATEWAY_LEASE_SECONDS/);
  });

  it('listens on the entry ports 20000-20099 unless GATEWAY_ENTRY_PORTS says otherwise (at most 100, or off), never over its own ports', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-env-'));
    expect(loadEnv({ DATA_DIR: dir }).entryPorts).toEqual({ from: 20000, to: 20099 });
    expect(loadEnv({ DATA_DIR: dir, GATEWAY_ENTRY_PORTS: '' }).entryPorts).toEqual({ from: 20000, to: 20099 });
    expect(loadEnv({ DATA_DIR: dir, GATEWAY_ENTRY_PORTS: '30000-30009' }).entryPorts).toEqual({ from: 30000, to: 30009 });
    expect(loadEnv({ DATA_DIR: dir, GATEWAY_ENTRY_PORTS: 'off' }).entryPorts).toBeNull();
    expect(() => loadEnv({ DATA_DIR: dir, GATEWAY_ENTRY_PORTS: '20000-20100' })).toThrow(
      /GATEWAY_ENTRY_PORTS: a port range such as 20000-20099 \(at most 100 ports\), or off/,
    );
    expect(() => loadEnv({ DATA_DIR: dir, GATEWAY_ENTRY_PORTS: 'x' })).toThrow(/GATEWAY_ENTRY_PORTS/);
    expect(() => loadEnv({ DATA_DIR: dir, GATEWAY_PORT: '20005' })).toThrow('GATEWAY_PORT 20005 is inside GATEWAY_ENTRY_PORTS (20000-20099)');
  });

  it('keeps the connection log unless GATEWAY_CONNECTION_LOG=0', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-env-'));
    expect(loadEnv({ DATA_DIR: dir }).connectionLog).toBe(true);
    expect(loadEnv({ DATA_DIR: dir, GATEWAY_CONNECTION_LOG: '1' }).connectionLog).toBe(true);
    expect(loadEnv({ DATA_DIR: dir, GATEWAY_CONNECTION_LOG: '0' }).connectionLog).toBe(false);
  });

  it('keeps its default id in the state directory, so a new host name finds the journal and leases of the old one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-env-'));
    const first = loadEnv({ GATEWAY_STATE_DIR: dir, GATEWAY_PORT: '3005' });
    rememberGatewayId(first);
    expect(first.gatewayId).toMatch(/:3005$/);
    expect(readFileSync(join(dir, 'gateway-id-3005'), 'utf8')).toBe(`${first.gatewayId}\n`);
    writeFileSync(join(dir, 'gateway-id-3001'), 'old-container:3001\n');
    expect(loadEnv({ GATEWAY_STATE_DIR: dir }).gatewayId).toBe('old-container:3001');
    const chosen = loadEnv({ GATEWAY_STATE_DIR: dir, GATEWAY_ID: 'gw-7', GATEWAY_PORT: '3007' });
    rememberGatewayId(chosen);
    expect(chosen.gatewayId).toBe('gw-7');
    expect(existsSync(join(dir, 'gateway-id-3007'))).toBe(false);
  });

  it('reads an empty value copied from .env.example as unset', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-env-'));
    const env = loadEnv({ DATA_DIR: dir, GATEWAY_PORT: '', GATEWAY_UPSTREAM_URL: '', GATEWAY_ALLOW_PRIVATE: '' });
    expect(env).toMatchObject({ port: 3001, upstreamUrl: undefined, allowPrivate: false });
  });

  it('refuses production without a key, and upstreams it cannot speak', () => {
    expect(() => loadEnv({ NODE_ENV: 'production' })).toThrow(/INTERNAL_API_KEY/);
    expect(() => loadEnv({ INTERNAL_API_KEY: 'k', GATEWAY_UPSTREAM_URL: 'ftp://x:1' })).toThrow(/http:\/\/ or socks5:\/\//);
    expect(loadEnv({ INTERNAL_API_KEY: 'k', GATEWAY_UPSTREAM_URL: 'socks5://u-{session}:p@up:1080', GATEWAY_ALLOW_PRIVATE: '1' })).toMatchObject({
      upstreamUrl: 'socks5://u-{session}:p@up:1080',
      allowPrivate: true,
    });
  });

  it('re-starts the relay process once with the allocator and heap settings', () => {
    const launch = tunedLaunch({ FOO: 'bar' });
    expect(launch?.env).toMatchObject({ FOO: 'bar', PROXYHUB_GATEWAY_CHILD: '1', MALLOC_TOP_PAD_: expect.any(String) });
    expect(launch?.nodeFlags).toContain('--initial-old-space-size=64');
    expect(tunedLaunch(launch!.env)).toBeNull();
  });

  it('classifies private, loopback, link-local and metadata addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.8',
      '172.20.1.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:10.0.0.1',
      '224.0.0.1',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPrivateAddress(a), a).toBe(false);
  });
});
