/**
 * Output schemas strip nothing a service returns: with data present on every read (balance, proxy
 * accounts, a connection record, a subscription, billing lines, a team member and an invite, keys,
 * gift codes, a webhook, codes), every GET REST path and every tRPC query is called as the user,
 * a member acting on the account and an admin, and each procedure's output step compares the
 * service's own value with what its schema let through (`watchOutputs`): a key the schema does not
 * declare fails the test with the procedure and the key's place.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '@proxyhub/api';
import { watchOutputs, type OutputWatch } from '@proxyhub/testing';
import { restRoutes } from '../src/rest';
import { addCredits, adminClient, internalClient, linkToken, RELAXED_LIMITS, signedInUser, startTestServer, type HttpClient, type TestServer } from './helpers';

const GB = 1073741824n;
let server: TestServer;
let watch: OutputWatch;
beforeAll(async () => {
  watch = watchOutputs(appRouter);
  server = await startTestServer({ rateLimits: RELAXED_LIMITS });
});
afterAll(async () => {
  watch.restore();
  await server.close();
});

const payInSandbox = (client: HttpClient, invoiceUrl: string) =>
  client.request('POST', new URL(invoiceUrl).pathname, 'outcome=finished', { 'content-type': 'application/x-www-form-urlencoded' });

/** A gateway's report of one connection on the user's main proxy account, with its connection record. */
async function reportConnection(user: { proxyUserId: string; proxyPassword: string }) {
  const gateway = internalClient(server).gateway;
  const { account } = await gateway.authorize.mutate({ proxyUserId: user.proxyUserId, password: user.proxyPassword });
  if (!account.ok) throw new Error(account.message);
  const gatewayId = 'output-schemas-gw';
  const lease = await gateway.reserveLease.mutate({ gatewayId, proxyAccountId: account.proxyAccountId, bytes: 1_000_000 });
  const at = Date.now() - 1000;
  const r = await gateway.report.mutate({
    gatewayId,
    seq: 1,
    items: [
      {
        leaseId: lease.leaseId!,
        bytesUp: 100,
        bytesDown: 1500,
        sessions: 1,
        release: true,
        parts: [{ protocol: 'connect', country: 'US', state: '', city: '', bytesUp: 100, bytesDown: 1500, sessions: 1 }],
      },
    ],
    logSessions: [[1, user.proxyUserId, account.proxyAccountId, 'US', '', '', 'rotating', 0]],
    logRows: [[at, 50, 'connect', 'shop.example:443', 1, 100, 1500, 'ok', '', '', '', 1, 40]],
  });
  expect(r.applied).toBe(true);
}

describe('output schemas', () => {
  it('strip no field the services return, on every read path and procedure', async () => {
    const admin = await adminClient(server);
    const owner = await signedInUser(server, 'Output Owner');
    await addCredits(server, owner.user.id, 5n * GB);
    const created = await owner.client.post<{ account: { proxyUserId: string } }>('/api/proxy-accounts', { name: 'scraper' });
    expect(created.status, JSON.stringify(created.body)).toBeLessThan(300);
    await reportConnection(owner.user);

    const plan = await admin.post<{ plan: { id: string } }>('/admin/plans', { name: 'Output plan', gbPerPeriod: 5, priceCents: 1500, period: 'month' });
    expect(plan.status).toBe(201);
    const sub = await owner.client.post<{ invoiceUrl: string }>('/api/subscriptions', { planId: plan.body.plan.id });
    expect((await payInSandbox(owner.client, sub.body.invoiceUrl)).status).toBe(303);
    const order = await owner.client.post<{ invoiceUrl: string }>('/auth/create-crypto-payment', { gbAmount: 12, priceUsd: 10.8 });
    expect((await payInSandbox(owner.client, order.body.invoiceUrl)).status).toBe(303);

    const viewer = await signedInUser(server, 'Output Viewer');
    expect((await owner.client.post('/api/team/invites', { email: viewer.email, role: 'viewer' })).status).toBe(201);
    await server.settle();
    expect((await viewer.client.post('/api/team/invites/accept', { token: linkToken(server.mails(viewer.email).at(-1)!) })).status).toBe(200);
    expect((await owner.client.post('/api/team/invites', { email: 'pending@example.com', role: 'developer' })).status).toBe(201);
    expect((await owner.client.post('/api/keys', { name: 'ci', scopes: ['usage:read'], allowedCidrs: ['10.0.0.0/8'] })).status).toBe(201);
    expect((await owner.client.post('/api/gift-codes', { creditsGB: 1 })).status).toBe(200);
    const hook = await owner.client.post<{ webhook: { id: string } }>('/api/webhooks', { url: 'http://127.0.0.1:1/hook', events: ['statement.ready'] });
    expect(hook.status).toBe(201);
    expect((await owner.client.request('PUT', '/api/ip-allowlist', { entries: ['203.0.113.7'] })).status).toBe(200);
    expect((await owner.client.request('PUT', '/api/alerts', { lowBalanceGB: 0.5 })).status).toBe(200);
    expect(
      (await owner.client.request('PUT', `/api/proxy-accounts/${created.body.account.proxyUserId}/targets`, { mode: 'deny', patterns: ['ads.example'] }))
        .status,
    ).toBe(200);
    expect((await admin.post('/admin/codes/create', { creditsGB: 1, quantity: 1 })).status).toBe(200);

    const connections = await owner.client.get<{ connections: { id: string }[] }>('/api/connections');
    const paymentId = order.body.invoiceUrl.split('/').at(-1)!;
    const today = new Date().toISOString().slice(0, 10);
    const fill = (url: string) =>
      url
        .replace('/api/connections/:id', `/api/connections/${connections.body.connections[0]?.id}`)
        .replace('/api/webhooks/:id', `/api/webhooks/${hook.body.webhook.id}`)
        .replace('/api/proxy-accounts/:id', `/api/proxy-accounts/${created.body.account.proxyUserId}`)
        .replace('/admin/users/:id', `/admin/users/${owner.user.id}`)
        .replace(':paymentId', paymentId)
        .replace(':date', today)
        .replace(':country', 'US')
        .replace(':state', 'CA')
        .replace(':slug', 'terms');
    const query: Record<string, string> = {
      '/api/proxy-list': '?country=US&count=2',
      '/admin/abuse': '?target=shop.example',
      '/api/usage': '?granularity=day',
    };

    const answered: string[] = [];
    const team = { 'x-proxyhub-account': owner.user.id };
    for (const r of restRoutes) {
      if (r.method !== 'GET' || /:id\/(usage|reconciliation)$/.test(r.url)) continue;
      const url = fill(r.url) + (query[r.url] ?? '');
      const client = r.url.startsWith('/admin') || r.url.startsWith('/auth/admin') ? admin : owner.client;
      const res = await client.get(url);
      if (res.status < 300) answered.push(r.url);
      if (!r.url.startsWith('/admin')) await viewer.client.get(url, team);
    }
    expect(answered.length).toBeGreaterThan(50);

    // Every query procedure over tRPC too, with the inputs the REST walk does not cover.
    const inputs: Record<string, unknown> = {
      'usage.connection': { id: connections.body.connections[0]?.id },
      'webhooks.deliveries': { id: hook.body.webhook.id },
      'proxyAccounts.targetRules': { id: created.body.account.proxyUserId },
      'admin.user': { id: owner.user.id },
      'admin.userConnections': { id: owner.user.id },
      'billing.receipt': { paymentId },
      'statements.day': { date: today },
      'locations.country': { country: 'US' },
      'locations.states': { country: 'US' },
      'locations.cities': { country: 'US', state: 'CA' },
      'locations.sessionLimit': { country: 'US' },
      'proxyLines.list': { country: 'US', count: 2 },
      'admin.abuseLookup': { target: 'shop.example' },
      'site.page': { slug: 'terms' },
      'credits.promoPreview': { code: 'NOPE', gbAmount: 10 },
    };
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
    for (const [path, p] of Object.entries(procedures)) {
      if (p._def.type !== 'query') continue;
      const input = encodeURIComponent(JSON.stringify({ json: inputs[path] ?? {} }));
      const client = path.startsWith('admin') ? admin : owner.client;
      await client.get(`/trpc/${path}?input=${input}`);
    }

    const stripped = Object.fromEntries([...watch.stripped].map(([path, keys]) => [path, [...keys].sort()]));
    expect(stripped).toEqual({});
    // The walk reached the reads it is meant to check (a path that failed would check nothing).
    const reads = ['auth.me', 'usage.history', 'usage.connections', 'usage.connection', 'billing.list', 'billing.receipt', 'subscriptions.list', 'team.list'];
    expect(reads.filter((r) => !watch.checked.has(r))).toEqual([]);
    for (const r of ['proxyAccounts.list', 'apiKeys.list', 'gifts.list', 'webhooks.list', 'admin.user', 'admin.users', 'admin.payments', 'admin.codes'])
      expect(watch.checked.has(r), r).toBe(true);
  }, 180_000); // it walks every read path and query of the API
});
