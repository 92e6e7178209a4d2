/**
 * Upstream templates, private hosts and the admin's upstream test over HTTP. Templates in the
 * grammar are stored and listed (the password never); an unknown placeholder or filter, an
 * unbalanced bracket or `{password}` in a username is a 400 naming it, nothing saved. Upstream
 * hosts on loopback, private, link-local or metadata addresses are refused unless private egress
 * is allowed (both ways tested). The test opens a real tunnel through a fake provider on loopback.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { upstreams, usageDaily } from '@proxyhub/db';
import { startFakeConnectProvider } from '@proxyhub/testing';
import { adminClient } from './credits-helpers';
import { startTestServer, type HttpClient, type TestServer } from './helpers';

let server: TestServer;
let admin: HttpClient;
let strict: TestServer;
let strictAdmin: HttpClient;
let target: Server;
let targetPort: number;
let provider: Awaited<ReturnType<typeof startFakeConnectProvider>>;
let providerPort: number;
let seen: Array<{ auth: string; target: string }> = [];
const closers: Array<() => unknown> = [];

beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
  strict = await startTestServer({ upstreams: { allowPrivate: false } });
  strictAdmin = await adminClient(strict);
  target = createHttpServer((_req, res) => res.end('hello from target\n'));
  target.listen(0, '127.0.0.1');
  await once(target, 'listening');
  targetPort = (target.address() as AddressInfo).port;
  // A provider speaking HTTP CONNECT: only `acct-us[-sid-<8>]` with password `pw_ok` gets a tunnel.
  provider = await startFakeConnectProvider((auth) => /^acct-us(-sid-[a-z0-9]{8})?:pw_ok$/.test(auth));
  seen = provider.seen;
  providerPort = provider.port;
});
afterAll(async () => {
  for (const c of closers) await c();
  target?.close();
  await provider?.close();
  await server?.close();
  await strict?.close();
});

const base = { name: 'Provider', protocol: 'http', host: 'provider.example.net', port: 8000, password: 'sealed-secret' };

describe('upstream templates', () => {
  it('stores both templates and lists them, never the password', async () => {
    const body = { ...base, usernameTemplate: 'acct-{country|lower}[-st-{state|name|lower|snake}]', passwordTemplate: '{password}[_life-{seconds}s]' };
    const r = await admin.request<{ upstream: Record<string, unknown> }>('POST', '/admin/upstreams', body);
    expect(r.status).toBe(201);
    expect(r.body.upstream).toMatchObject({ usernameTemplate: body.usernameTemplate, passwordTemplate: body.passwordTemplate, hasPassword: true });
    expect(JSON.stringify(r.body)).not.toContain('sealed-secret');
    const list = await admin.get<{ upstreams: Array<Record<string, unknown>> }>('/admin/upstreams');
    const listed = list.body.upstreams.find((u) => u.id === r.body.upstream.id)!;
    expect(listed).toMatchObject({ usernameTemplate: body.usernameTemplate, passwordTemplate: body.passwordTemplate });
    expect(JSON.stringify(list.body)).not.toContain('sealed-secret');

    const patched = await admin.request<{ upstream: Record<string, unknown> }>('PATCH', `/admin/upstreams/${r.body.upstream.id as string}`, {
      passwordTemplate: '',
    });
    expect(patched).toMatchObject({ status: 200, body: { upstream: { passwordTemplate: '', usernameTemplate: body.usernameTemplate } } });
    expect(JSON.stringify(patched.body)).not.toContain('sealed-secret');
    // Nor the per-day usage of the upstream.
    expect(JSON.stringify((await admin.get(`/admin/upstreams/${r.body.upstream.id as string}/usage`)).body)).not.toContain('sealed-secret');
    // Created without one: the password goes as it is.
    const plain = await admin.request<{ upstream: Record<string, unknown> }>('POST', '/admin/upstreams', { ...base, usernameTemplate: 'u-{country}' });
    expect(plain.body.upstream).toMatchObject({ passwordTemplate: '' });
  });

  it('refuses a template it cannot read with a 400 naming what is wrong, and saves nothing', async () => {
    const count = async () => (await admin.get<{ upstreams: unknown[] }>('/admin/upstreams')).body.upstreams.length;
    const before = await count();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ usernameTemplate: 'acct-{region}' }, 'Username template: unknown placeholder {region}'],
      [{ usernameTemplate: 'acct-{city|title}' }, "Username template: unknown filter 'title' in {city|title}"],
      [{ usernameTemplate: 'acct[-{state}' }, "Username template: unbalanced '[' at position 5"],
      [{ usernameTemplate: 'acct-{state' }, "Username template: unbalanced '{' at position 6"],
      [{ usernameTemplate: 'acct-{password}' }, 'Username template: {password} is only allowed in the password template'],
      [{ passwordTemplate: '{password}_{postcode}' }, 'Password template: unknown placeholder {postcode}'],
      [{ usernameTemplate: 'acct-{zip|name}' }, "Username template: filter 'name' applies only to {country}, {state} or {city}, not {zip}"],
      [{ passwordTemplate: '{password}]' }, "Password template: unbalanced ']' at position 11"],
      [{ usernameTemplate: 'x'.repeat(256) }, 'Username template must be at most 255 characters'],
      [{ usernameTemplate: 5 }, 'Username template must be text'],
      [{ passwordTemplate: 'x'.repeat(256) }, 'Password template must be at most 255 characters'],
      [{ passwordTemplate: 5 }, 'Password template must be text'],
    ];
    for (const [change, error] of cases) {
      const r = await admin.request<{ error: string }>('POST', '/admin/upstreams', { ...base, ...change });
      expect(r, JSON.stringify(change)).toMatchObject({ status: 400, body: { error } });
    }
    expect(await count()).toBe(before);

    const made = await admin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', { ...base, usernameTemplate: 'ok-{country}' });
    for (const [change, error] of cases) {
      const r = await admin.request<{ error: string }>('PATCH', `/admin/upstreams/${made.body.upstream.id}`, change);
      expect(r, JSON.stringify(change)).toMatchObject({ status: 400, body: { error } });
    }
    const after = (await admin.get<{ upstreams: Array<{ id: string; usernameTemplate: string; passwordTemplate: string }> }>('/admin/upstreams')).body
      .upstreams;
    expect(after.find((u) => u.id === made.body.upstream.id)).toMatchObject({ usernameTemplate: 'ok-{country}', passwordTemplate: '' });
  });
});

describe('private upstream hosts', () => {
  const PRIVATE = ['127.0.0.1', '169.254.169.254', '10.0.0.1', 'localhost', '::1', '[::1]', 'metadata.google.internal', '192.168.1.20', '::ffff:127.0.0.1'];

  it('are refused at creation and update (400 naming the host) when private egress is off', async () => {
    for (const host of PRIVATE) {
      const r = await strictAdmin.request<{ error: string }>('POST', '/admin/upstreams', { ...base, host });
      expect(r, host).toMatchObject({ status: 400, body: { error: `host ${host} is a loopback, private, link-local or metadata address` } });
    }
    expect((await strictAdmin.get<{ upstreams: unknown[] }>('/admin/upstreams')).body.upstreams).toHaveLength(0);
    // A public address, or a name that does not resolve here (judged again when a gateway dials), is accepted.
    const ok = await strictAdmin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', { ...base, host: '8.8.8.8' });
    expect(ok.status).toBe(201);
    const bad = await strictAdmin.request<{ error: string }>('PATCH', `/admin/upstreams/${ok.body.upstream.id}`, { host: '169.254.169.254' });
    expect(bad).toMatchObject({ status: 400, body: { error: 'host 169.254.169.254 is a loopback, private, link-local or metadata address' } });
    const list = (await strictAdmin.get<{ upstreams: Array<{ host: string }> }>('/admin/upstreams')).body.upstreams;
    expect(list.map((u) => u.host)).toEqual(['8.8.8.8']);
  });

  it('are accepted when private egress is allowed (tests, development)', async () => {
    for (const host of ['127.0.0.1', 'localhost', '::1']) {
      const r = await admin.request('POST', '/admin/upstreams', { ...base, host });
      expect(r.status, host).toBe(201);
    }
  });
});

describe('testing an upstream', () => {
  async function provider_(body: Record<string, unknown> = {}) {
    const r = await admin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', {
      ...base,
      host: '127.0.0.1',
      port: providerPort,
      usernameTemplate: 'acct-{country|lower}[-sid-{sid}]',
      passwordTemplate: '{password}',
      password: 'pw_ok',
      ...body,
    });
    expect(r.status).toBe(201);
    return r.body.upstream.id;
  }

  it('opens a tunnel as a line would and fetches the page: status, latency, username as sent, body; password never', async () => {
    const id = await provider_();
    const usageBefore = (await server.deps.db.select().from(usageDaily)).length;
    const sticky = await admin.request<Record<string, unknown>>('POST', `/admin/upstreams/${id}/test`, {
      country: 'US',
      minutes: 10,
      url: `http://127.0.0.1:${targetPort}/`,
    });
    expect(sticky.status).toBe(200);
    expect(sticky.body).toMatchObject({ ok: true, status: 200, body: 'hello from target\n' });
    expect(sticky.body.username).toMatch(/^acct-us-sid-[a-z0-9]{8}$/);
    expect(typeof sticky.body.latencyMs).toBe('number');
    expect(JSON.stringify(sticky.body)).not.toContain('pw_ok');
    expect(seen.at(-1)).toEqual({ auth: `${sticky.body.username as string}:pw_ok`, target: `127.0.0.1:${targetPort}` });

    const rotating = await admin.request<Record<string, unknown>>('POST', `/admin/upstreams/${id}/test`, {
      country: 'us',
      minutes: 0,
      url: `http://127.0.0.1:${targetPort}/`,
    });
    expect(rotating.body).toMatchObject({ ok: true, status: 200, username: 'acct-us' });
    // Not billed: no usage recorded anywhere.
    expect((await server.deps.db.select().from(usageDaily)).length).toBe(usageBefore);
  });

  it('fetches UPSTREAM_CHECK_URL when no url is given, and answers the first 500 characters of the page', async () => {
    const long = createHttpServer((_req, res) => res.end(`${'0123456789'.repeat(100)}tail`));
    long.listen(0, '127.0.0.1');
    await once(long, 'listening');
    closers.push(() => long.close());
    const checkUrl = `http://127.0.0.1:${(long.address() as AddressInfo).port}/ip`;
    const id = await provider_();
    // The server keeps the config object it was given: UPSTREAM_CHECK_URL as the environment would set it.
    const before = server.config.upstreams;
    server.config.upstreams = { ...before, checkUrl };
    try {
      const r = await admin.request<Record<string, unknown>>('POST', `/admin/upstreams/${id}/test`, { country: 'US' });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ ok: true, status: 200, body: '0123456789'.repeat(50) });
      expect(Object.keys(r.body).sort()).toEqual(['body', 'latencyMs', 'ok', 'status', 'username']);
      expect(seen.at(-1)!.target).toBe(new URL(checkUrl).host);
    } finally {
      server.config.upstreams = before;
    }
  });

  it('speaks TLS through the tunnel to an https page (a self-signed one is refused by certificate checks)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'upstream-tls-'));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      {
        stdio: 'ignore',
      },
    );
    const tls = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => res.end('secure\n'));
    tls.listen(0, '127.0.0.1');
    await once(tls, 'listening');
    closers.push(() => tls.close());
    const id = await provider_();
    const r = await admin.request<Record<string, unknown>>('POST', `/admin/upstreams/${id}/test`, {
      country: 'US',
      url: `https://localhost:${(tls.address() as AddressInfo).port}/`,
    });
    expect(r.body).toMatchObject({
      ok: false,
      status: null,
      failure: 'certificate',
      reason: "The upstream worked; the check page's TLS certificate is not trusted: give a check URL with a valid certificate",
    });
    expect(r.body.error).toMatch(/self[- ]signed certificate/);
    expect(seen.at(-1)!.target).toBe(`localhost:${(tls.address() as AddressInfo).port}`);
  });

  it("answers ok:false with the upstream's refusal, an unreachable upstream, or the timeout", async () => {
    const refused = await provider_({ password: 'wrong' });
    const r1 = await admin.request<Record<string, unknown>>('POST', `/admin/upstreams/${refused}/test`, {
      country: 'US',
      url: `http://127.0.0.1:${targetPort}/`,
    });
    expect(r1.status).toBe(200);
    // Each failure in one sentence that says what to check, the raw text kept beside it (the dialog's Details).
    expect(r1.body).toMatchObject({
      ok: false,
      status: null,
      error: 'Upstream proxy refused the tunnel (407)',
      failure: 'auth',
      reason: 'The upstream refused the username or password: check the account part of the template and the password',
    });
    expect(r1.body.username).toMatch(/^acct-us-sid-/);
    expect(JSON.stringify(r1.body)).not.toContain('wrong');

    const closed = createTcpServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const closedPort = (closed.address() as AddressInfo).port;
    closed.close();
    const gone = await provider_({ port: closedPort });
    const r2 = await admin.request<Record<string, unknown>>('POST', `/admin/upstreams/${gone}/test`, { country: 'US' });
    expect(r2.body).toMatchObject({
      ok: false,
      status: null,
      failure: 'refused',
      reason: 'The upstream refused the connection on this port: check the host and the port',
    });
    expect(r2.body.error).toMatch(/ECONNREFUSED/);

    // Accepts connections and never answers.
    const sockets: Socket[] = [];
    const silent = createTcpServer((s) => sockets.push(s));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    closers.push(() => {
      for (const s of sockets) s.destroy();
      silent.close();
    });
    const mute = await provider_({ port: (silent.address() as AddressInfo).port });
    const t0 = Date.now();
    const r3 = await admin.request<Record<string, unknown>>('POST', `/admin/upstreams/${mute}/test`, { country: 'US', url: `http://127.0.0.1:${targetPort}/` });
    expect(r3.body).toMatchObject({
      ok: false,
      status: null,
      error: 'Timed out after 10 s',
      failure: 'timeout',
      reason: "The upstream did not answer within 10 s: check the host, the port and that the provider accepts this server's address",
    });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(9_900);
  }, 30_000);

  it('blames TLS when what answers through the tunnel does not speak it: one sentence, the raw text kept', async () => {
    const id = await provider_();
    // An https:// check URL on a plain HTTP port: the TLS handshake meets an HTTP answer.
    const r = await admin.request<Record<string, unknown>>('POST', `/admin/upstreams/${id}/test`, { country: 'US', url: `https://127.0.0.1:${targetPort}/` });
    expect(r.body).toMatchObject({
      ok: false,
      failure: 'tls',
      reason: 'The upstream did not answer TLS on this port: check the port and the protocol',
    });
    expect(r.body.error).toMatch(/wrong version number|EPROTO|SSL/i);
  });

  it('refuses bad input (400 naming the field), unknown upstreams (404), and a private upstream when private egress is off', async () => {
    const id = await provider_();
    const bad: Array<[Record<string, unknown>, string]> = [
      [{}, 'Country is required'],
      [{ country: 'USA' }, 'Country must be a two-letter country code'],
      [{ country: 'US', minutes: 10081 }, 'Minutes must be from 0 to 10080'],
      [{ country: 'US', url: 'ftp://example.com/' }, 'URL must be an http:// or https:// address'],
    ];
    for (const [body, error] of bad) {
      const r = await admin.request<{ error: string }>('POST', `/admin/upstreams/${id}/test`, body);
      expect(r, JSON.stringify(body)).toMatchObject({ status: 400, body: { error } });
    }
    expect((await admin.request('POST', '/admin/upstreams/00000000-0000-4000-8000-000000000000/test', { country: 'US' })).status).toBe(404);

    // Stored while private egress was on; the server that forbids it will not dial it.
    const made = await strictAdmin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', { ...base, host: 'upstream.invalid' });
    await strict.deps.db.update(upstreams).set({ host: '127.0.0.1', port: providerPort }).where(eq(upstreams.id, made.body.upstream.id));
    const r = await strictAdmin.request<Record<string, unknown>>('POST', `/admin/upstreams/${made.body.upstream.id}/test`, { country: 'US' });
    expect(r.body).toMatchObject({ ok: false, error: 'Upstream 127.0.0.1 is a private address', failure: 'private_upstream' });
    // Nor send the check to a private page through a public upstream.
    const pub = await strictAdmin.request<{ upstream: { id: string } }>('POST', '/admin/upstreams', { ...base, host: '8.8.4.4' });
    const metadata = await strictAdmin.request<Record<string, unknown>>('POST', `/admin/upstreams/${pub.body.upstream.id}/test`, {
      country: 'US',
      url: 'http://169.254.169.254/latest/meta-data/',
    });
    expect(metadata.body).toMatchObject({
      ok: false,
      error: 'Destination 169.254.169.254 is a private address',
      failure: 'private',
      reason: 'The check URL is a private address: give a public page',
    });
  });
});
