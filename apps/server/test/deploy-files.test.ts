/**
 * The deployment files at the root (Dockerfile, compose.yaml) checked with what runs here, without a
 * container engine: the Dockerfile's build stage runs as plain shell steps in a fresh clone, the
 * runtime stage's COPY sources must then exist and the result must start; compose.yaml must name
 * the services and variables the "More than one machine" section of docs/operations.md lists.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { closeServer, listen } from './helpers';

const REPO = resolve(import.meta.dirname, '../../..');
const NETWORK_ENV = /^(NODE_EXTRA_CA_CERTS|SSL_CERT_(FILE|DIR)|(HTTPS?|NO|ALL)_PROXY|npm_config_(registry|cafile|proxy|https_proxy|noproxy|strict_ssl))$/i;
const read = (name: string) => readFileSync(join(REPO, name), 'utf8');

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  from: string;
  name: string;
  steps: Instruction[];
}

/** Dockerfile instructions by stage (comments dropped, continuation lines joined). */
function parseDockerfile(text: string): Stage[] {
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (op.toUpperCase() === 'FROM') {
      const m = /^(\S+)\s+AS\s+(\S+)$/i.exec(args);
      stages.push({ from: m?.[1] ?? args, name: m?.[2] ?? '', steps: [] });
    } else stages.at(-1)?.steps.push({ op: op.toUpperCase(), args });
  }
  return stages;
}

/** Names of variables a docs/operations.md bullet says its process needs ("Each needs `A`, `B=x`, ... ("). */
function readmeNeeds(bullet: string): string[] {
  const section = /## More than one machine\n([\s\S]*?)\n## /.exec(read('docs/operations.md'))?.[1] ?? '';
  const item = section.split('\n- ').find((b) => b.startsWith(bullet)) ?? '';
  const needs = /Each\s+needs\s+([\s\S]*?)\(/.exec(item)?.[1] ?? '';
  return [...needs.matchAll(/`([A-Z][A-Z0-9_]+)(?:=[^`]*)?`/g)].map((m) => m[1]!);
}

const stages = parseDockerfile(read('Dockerfile'));
const build = stages[0]!;
const runtime = stages.at(-1)!;

describe('Dockerfile', () => {
  it('is multi-stage and runs as a non-root user with the built server and gateway', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages.every((s) => s.name)).toBe(true);
    const user = runtime.steps.filter((s) => s.op === 'USER').at(-1)?.args;
    expect(user).toBeTruthy();
    expect(['root', '0', '0:0']).not.toContain(user);
    const copies = runtime.steps.filter((s) => s.op === 'COPY').map((s) => s.args);
    expect(copies.some((c) => c.includes(`--from=${build.name}`) && c.includes('apps/server/dist'))).toBe(true);
    expect(copies.some((c) => c.includes(`--from=${build.name}`) && c.includes('apps/gateway/dist'))).toBe(true);
    expect(runtime.steps.find((s) => s.op === 'EXPOSE')?.args.split(/\s+/)).toEqual(expect.arrayContaining(['3000', '3001']));
    expect(runtime.steps.find((s) => s.op === 'CMD')?.args).toContain('apps/server/dist/main.js');
  });
});

describe('Dockerfile layer caching', () => {
  const steps = build.steps;
  const install = steps.findIndex((s) => s.op === 'RUN' && /\bpnpm install\b/.test(s.args));
  const copiedBefore = steps
    .slice(0, install)
    .filter((s) => s.op === 'COPY')
    .flatMap((s) => {
      const parts = s.args.split(/\s+/).filter((a) => !a.startsWith('--'));
      const dest = parts.at(-1)!;
      // `COPY a b dir/` puts each source in dir/ by its name (a file's own directory is not kept).
      return parts.slice(0, -1).map((src) => (dest === './' || dest === '.' ? src : `${dest.replace(/\/$/, '')}/${src.split('/').at(-1)}`));
    });

  it('copies the manifests and installs before copying the sources', () => {
    expect(install).toBeGreaterThan(0);
    const workspaceManifests = ['apps', 'packages'].flatMap((top) =>
      readdirSync(join(REPO, top))
        .filter((d) => existsSync(join(REPO, top, d, 'package.json')))
        .map((d) => `${top}/${d}/package.json`),
    );
    expect(workspaceManifests.length).toBeGreaterThan(5);
    expect(copiedBefore).toEqual(expect.arrayContaining(['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', '.npmrc', ...workspaceManifests]));
    // Nothing but manifests before the install; the sources after it.
    expect(copiedBefore.every((c) => /(^|\/)(package\.json|pnpm-lock\.yaml|pnpm-workspace\.yaml|\.npmrc)$/.test(c))).toBe(true);
    const sources = steps.findIndex((s) => s.op === 'COPY' && /^\.\s+\.\/?$/.test(s.args));
    expect(sources).toBeGreaterThan(install);
  });
});

describe('compose.yaml', () => {
  const compose = parseYaml(read('compose.yaml')) as { services: Record<string, { environment?: Record<string, unknown>; healthcheck?: { test: string[] } }> };

  it('has PostgreSQL, Redis, the server and the gateway, checked on /ready', () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['postgres', 'redis', 'server', 'gateway']));
    expect(compose.services.server!.healthcheck!.test.join(' ')).toContain('/ready');
    expect(compose.services.gateway!.healthcheck!.test.join(' ')).toContain(':3002/ready');
  });

  it('does not trust X-Forwarded-For unless the operator sets TRUST_PROXY (a proxy in front)', () => {
    const trust = compose.services.server!.environment?.TRUST_PROXY;
    expect([undefined, '', '${TRUST_PROXY:-}']).toContain(trust);
  });

  it.each([
    ['server', '**Servers**'],
    ['gateway', '**Gateways**'],
  ])('gives the %s every variable docs/operations.md says it needs', (service, bullet) => {
    const needs = readmeNeeds(bullet);
    expect(needs.length).toBeGreaterThan(4);
    expect(Object.keys(compose.services[service]!.environment ?? {})).toEqual(expect.arrayContaining(needs));
  });
});

async function freePort(): Promise<number> {
  const s = createServer();
  const port = await listen(s);
  await closeServer(s);
  return port;
}

async function waitReady(url: string, child: ChildProcess, log: () => string): Promise<Response> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${log()}`);
    try {
      const r = await fetch(url);
      if (r.ok) return r;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not ready:\n${log()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// The build touches no database: it runs once, in CI's first (PGlite) pass.
describe.skipIf(Boolean(process.env.DATABASE_URL))('the build stage as shell steps in a fresh clone', () => {
  let work = '';
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) c.kill('SIGKILL');
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('builds, leaves every file the runtime stage copies, and the result serves /ready', { timeout: 15 * 60_000 }, async () => {
    work = mkdtempSync(join(tmpdir(), 'proxyhub-docker-'));
    const clone = join(work, 'app');
    execFileSync('git', ['clone', '--quiet', REPO, clone]);
    // Global tool installs go to a prefix of our own (this machine's tools stay as they are).
    const tools = join(work, 'tools');
    // The build reads this checkout's turbo cache: the same sources were built here for the other
    // tests (the browser and crash tests build the web app, server and gateway first), so the
    // build step restores those outputs, as a builder with a shared cache would, instead of
    // compiling everything once more; a source that differs from the last build is compiled.
    const env: NodeJS.ProcessEnv = {
      PATH: `${join(tools, 'bin')}:${process.env.PATH}`,
      HOME: process.env.HOME,
      TURBO_CACHE_DIR: join(REPO, '.turbo/cache'),
      // This machine's way to the registry (its certificates and proxy, as a builder's network
      // would be set up): without them npm retried a failing TLS handshake for 70 s.
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => NETWORK_ENV.test(k))),
    };
    for (const step of build.steps) {
      if (step.op === 'ENV') {
        for (const m of step.args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[m[1]!] = m[2]!.replace(/^"|"$/g, '');
      } else if (step.op === 'RUN') {
        const command = step.args.replace(/\bnpm install -g\b/g, `npm install -g --prefix ${tools}`);
        // Low priority: the test suite runs beside it on the same cores.
        execFileSync('nice', ['-n', '10', 'bash', '-euo', 'pipefail', '-c', command], { cwd: clone, env, stdio: 'pipe', maxBuffer: 64 * 1024 * 1024 });
      }
    }
    const workdir = build.steps.filter((s) => s.op === 'WORKDIR').at(-1)?.args ?? '/';
    for (const copy of runtime.steps.filter((s) => s.op === 'COPY' && s.args.includes(`--from=${build.name}`))) {
      const source = copy.args.split(/\s+/).filter((a) => !a.startsWith('--'))[0]!;
      expect(existsSync(join(clone, source.startsWith(workdir) ? source.slice(workdir.length) : source)), source).toBe(true);
    }
    expect(existsSync(join(clone, 'apps/server/dist/drizzle'))).toBe(true);
    expect(existsSync(join(clone, 'node_modules/.pnpm'))).toBe(true);
    // Development tools are gone: the production dependencies alone run both processes.
    expect(existsSync(join(clone, 'node_modules/vitest'))).toBe(false);

    const dataDir = join(work, 'data');
    const [port, gatewayPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
    const start = (entry: string, extra: NodeJS.ProcessEnv) => {
      const child = spawn(process.execPath, [entry], {
        cwd: clone,
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'development',
          DATA_DIR: dataDir,
          INTERNAL_API_KEY: 'deploy-test-internal-key-0123456789',
          LOG_LEVEL: 'warn',
          ...extra,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let log = '';
      child.stdout.on('data', (d: Buffer) => (log += d.toString()));
      child.stderr.on('data', (d: Buffer) => (log += d.toString()));
      return { child, log: () => log };
    };
    const server = start('apps/server/dist/main.js', { HOST: '127.0.0.1', PORT: String(port), APP_SECRET: 'deploy-test-app-secret-0123456789abcdef' });
    const ready = await waitReady(`http://127.0.0.1:${port}/ready`, server.child, server.log);
    expect(await ready.json()).toEqual({ status: 'ready' });
    const web = await fetch(`http://127.0.0.1:${port}/`, { headers: { accept: 'text/html' } });
    expect(await web.text()).toContain('<div id="root">');
    const gateway = start('apps/gateway/dist/main.js', {
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: String(gatewayPort),
      // No entry ports (20000-20099 by default): processes of other tests may hold them.
      GATEWAY_ENTRY_PORTS: 'off',
      GATEWAY_METRICS_PORT: String(metricsPort),
      GATEWAY_SERVER_URL: `http://127.0.0.1:${port}`,
    });
    await waitReady(`http://127.0.0.1:${metricsPort}/ready`, gateway.child, gateway.log);
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(await metrics.text()).toContain('gateway_connections_total');
    for (const c of [gateway.child, server.child]) {
      c.kill('SIGTERM');
      await once(c, 'exit');
    }
  });
});
