/**
 * Gateway processes from source (each its own OS process, like `pnpm --filter @proxyhub/gateway
 * exec tsx src/serve.ts`) against a test server: what a fleet of gateways is in tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { INTERNAL_KEY, type TestServer } from './helpers';
import { freePort } from './crash/processes';

const GATEWAY_DIR = resolve(import.meta.dirname, '..');

export interface GatewayProcess {
  child: ChildProcess;
  port: number;
  output: string;
}

/** A gateway process on its own port against `on`, ready to accept; `env` adds to (or overrides) its environment. */
export async function startGatewayProcess(name: string, on: TestServer, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/serve.ts'], {
    cwd: GATEWAY_DIR,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      DATA_DIR: mkdtempSync(join(tmpdir(), `proxyhub-${name}-`)),
      GATEWAY_ID: name,
      GATEWAY_SERVER_URL: on.url,
      INTERNAL_API_KEY: INTERNAL_KEY,
      GATEWAY_PORT: String(port),
      // No entry ports (20000-20099 by default): processes of other tests may hold them.
      GATEWAY_ENTRY_PORTS: 'off',
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_METRICS_PORT: 'off',
      GATEWAY_ALLOW_PRIVATE: 'true',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const gw = { child, port, output: '' };
  const ready = new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${name} not ready:\n${gw.output.slice(-3000)}`)), 90_000);
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (text: string) => {
        gw.output += text;
        if (gw.output.includes('ProxyHub gateway ready')) {
          clearTimeout(timer);
          ok();
        }
      });
    }
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${name} exited (${code}):\n${gw.output.slice(-3000)}`));
    });
  });
  try {
    await ready;
  } catch (err) {
    await stopGatewayProcess(gw);
    throw err;
  }
  return gw;
}

export async function stopGatewayProcess(gw: { child: ChildProcess }): Promise<void> {
  if (gw.child.exitCode !== null || gw.child.signalCode !== null) return;
  const gone = once(gw.child, 'exit');
  gw.child.kill('SIGTERM');
  await gone;
}
