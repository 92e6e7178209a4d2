/**
 * Team members: invites mailed and accepted, the list, role changes and removal; a member acting
 * on the team's account through `X-ProxyHub-Account` may do what their role allows (every user REST
 * path and tRPC procedure walked with a member of each role), spends the team's balance, and is
 * refused at once when removed; the account's audit log records members' and keys' changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { appRouter, AUDITED_PROCEDURES, pruneAccountAudit } from '@proxyhub/api';
import { ACCOUNT_AUDIT_ACTIONS, gbToBytes, roleAllows, roleRefusal, TEAM_ROLES, type TeamRole } from '@proxyhub/core';
import { accountAudit } from '@proxyhub/db';
import { restRoutes } from '../src/rest';
import { addCredits, linkToken, RELAXED_LIMITS, signedInUser, startTestServer, uniqueEmail, type HttpClient, type TestServer } from './helpers';
import { memberRight, REST_SCOPES, TRPC_SCOPES } from './user-scopes';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: RELAXED_LIMITS });
});
afterAll(() => server.close());

type Person = Awaited<ReturnType<typeof signedInUser>>;
const ACCOUNT = 'x-proxyhub-account';

/** A call made while switched to `accountId`, as the web app makes every call. */
const acting = (client: HttpClient, accountId: string) => ({
  request: <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => client.request<T>(method, path, body, { [ACCOUNT]: accountId }),
  get: <T = Record<string, unknown>>(path: string) => client.request<T>('GET', path, undefined, { [ACCOUNT]: accountId }),
  post: <T = Record<string, unknown>>(path: string, body: unknown = {}) => client.request<T>('POST', path, body, { [ACCOUNT]: accountId }),
});

async function invite(owner: HttpClient, email: string, role: string) {
  const r = await owner.post<{ invite: { id: string; email: string; role: string } }>('/api/team/invites', { email, role });
  await server.settle();
  return r;
}

/** A new person who joined `owner`'s account in `role` through the mailed link. */
async function member(owner: Person, role: TeamRole): Promise<Person> {
  const person = await signedInUser(server, `${role} person`);
  expect((await invite(owner.client, person.email, role)).status).toBe(201);
  const token = linkToken(server.mails(person.email).at(-1)!);
  expect((await person.client.post('/api/team/invites/accept', { token })).status).toBe(200);
  return person;
}

describe('invites, the list, roles and removal', () => {
  it('invites by mail, accepts once with the invited address, lists, changes the role and removes', async () => {
    const owner = await signedInUser(server, 'Acme Owner');
    const person = await signedInUser(server, 'Dana Developer');
    const sent = await invite(owner.client, person.email.toUpperCase(), 'viewer');
    expect(sent).toMatchObject({ status: 201, body: { success: true, invite: { id: expect.any(String), email: person.email, role: 'viewer' } } });
    const mail = server.mails(person.email).at(-1)!;
    expect(mail.subject).toContain('invited');
    expect(mail.text).toContain('/team/accept?token=');
    const token = linkToken(mail);

    const pending = await owner.client.get<{ members: unknown[]; invites: { email: string; role: string }[] }>('/api/team');
    expect(pending.body).toMatchObject({ success: true, members: [], invites: [{ email: person.email, role: 'viewer' }] });

    // A forwarded link does not let someone else in.
    const other = await signedInUser(server);
    expect(await other.client.post('/api/team/invites/accept', { token })).toMatchObject({
      status: 403,
      body: { success: false, error: 'This invite was sent to another email address: sign in with that one' },
    });
    const accepted = await person.client.post('/api/team/invites/accept', { token });
    expect(accepted).toMatchObject({ status: 200, body: { success: true, account: { accountId: owner.user.id, name: 'Acme Owner', role: 'viewer' } } });
    expect(await person.client.post('/api/team/invites/accept', { token })).toMatchObject({
      status: 400,
      body: { error: 'This invite link is invalid, used or expired' },
    });

    const listed = await owner.client.get<{ members: { id: string; userId: string; role: string }[]; invites: unknown[] }>('/api/team');
    expect(listed.body.invites).toEqual([]);
    expect(listed.body.members).toEqual([
      { id: expect.any(String), userId: person.user.id, name: 'Dana Developer', email: person.email, role: 'viewer', createdAt: expect.any(String) },
    ]);
    const memberId = listed.body.members[0]!.id;
    expect(await person.client.get('/api/team/accounts')).toMatchObject({
      status: 200,
      body: { accounts: [{ accountId: owner.user.id, name: 'Acme Owner', role: 'viewer' }] },
    });

    const team = acting(person.client, owner.user.id);
    const me = await team.get<{ user: { id: string; apiKey: string }; actor: unknown }>('/auth/user');
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ id: owner.user.id, apiKey: '' });
    expect(me.body.actor).toEqual({ id: person.user.id, name: 'Dana Developer', role: 'viewer' });
    // Without the header the member is themself, with no actor.
    const own = await person.client.get<{ user: { id: string }; actor?: unknown }>('/auth/user');
    expect(own.body.user.id).toBe(person.user.id);
    expect(own.body.actor).toBeUndefined();

    expect(await invite(owner.client, person.email, 'admin')).toMatchObject({
      status: 409,
      body: { error: 'That person is already a member of this account' },
    });

    expect(await owner.client.request('PATCH', `/api/team/members/${memberId}`, { role: 'developer' })).toMatchObject({
      status: 200,
      body: { success: true, member: { id: memberId, role: 'developer' } },
    });
    expect((await team.get<{ actor: { role: string } }>('/auth/user')).body.actor.role).toBe('developer');
    expect(await owner.client.request('PATCH', `/api/team/members/${memberId}`, { role: 'boss' })).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('Unknown role: boss') },
    });

    // Leaving: the next request on the team's account is refused; the member's own account stays.
    expect((await team.get('/api/usage')).status).toBe(200);
    expect(await owner.client.request('DELETE', `/api/team/members/${memberId}`)).toMatchObject({ status: 200, body: { success: true, deleted: true } });
    expect(await team.get('/api/usage')).toMatchObject({ status: 403, body: { success: false, error: 'You are not a member of that account' } });
    expect((await person.client.get<{ user: { id: string } }>('/auth/user')).body.user.id).toBe(person.user.id);
    expect(await owner.client.request('DELETE', `/api/team/members/${memberId}`)).toMatchObject({ status: 404, body: { error: 'Member not found' } });
  });

  it('bad input is a 4xx naming it: an invite to one own email, an unknown role, a bad address', async () => {
    const owner = await signedInUser(server);
    expect(await invite(owner.client, owner.email, 'viewer')).toMatchObject({
      status: 400,
      body: { success: false, error: 'You cannot invite yourself: your own account is already yours' },
    });
    expect(await invite(owner.client, uniqueEmail(), 'superuser')).toMatchObject({
      status: 400,
      body: { success: false, error: 'Unknown role: superuser (roles are admin, developer, finance, viewer)' },
    });
    expect(await invite(owner.client, 'not-an-address', 'viewer')).toMatchObject({ status: 400, body: { error: 'Please enter a valid email address' } });
    expect((await owner.client.get<{ invites: unknown[] }>('/api/team')).body.invites).toEqual([]);
  });

  it('a header naming an account the caller is not a member of is a 403; so is one with an API key', async () => {
    const owner = await signedInUser(server);
    const stranger = await signedInUser(server);
    expect(await acting(stranger.client, owner.user.id).get('/api/usage')).toMatchObject({
      status: 403,
      body: { success: false, error: 'You are not a member of that account' },
    });
    expect((await acting(stranger.client, 'not-a-uuid').get('/auth/user')).status).toBe(403);
    // Naming one's own account is the same as no header.
    expect((await acting(stranger.client, stranger.user.id).get('/auth/user')).status).toBe(200);
    const keyed = server.client();
    keyed.bearer = stranger.user.apiKey;
    expect((await acting(keyed, owner.user.id).get('/api/usage')).status).toBe(403);
  });
});

describe('every user REST path and tRPC procedure with a member of each role', () => {
  let owner: Person;
  const members = {} as Record<TeamRole, Person>;
  beforeAll(async () => {
    owner = await signedInUser(server, 'Walked Team');
    for (const role of TEAM_ROLES) members[role] = await member(owner, role);
  });
  const fill = (url: string) =>
    url
      .replace(':paymentId', '00000000-0000-4000-8000-000000000000')
      .replace(':deliveryId', '00000000-0000-4000-8000-000000000000')
      .replace(':id', '00000000-0000-4000-8000-000000000000')
      .replace(':proxyUserId', 'nosuchuser')
      .replace(':date', '2026-01-01')
      .replace(':code', 'NOPE0000');
  const bodyless = (method: string) => method === 'GET' || method === 'DELETE';
  const allowed = (role: TeamRole, right: ReturnType<typeof memberRight>) => right === 'own' || right === 'any' || roleAllows(role, right);

  it.each(TEAM_ROLES)('REST as %s', async (role) => {
    const anonymous = server.client();
    const team = acting(members[role].client, owner.user.id);
    const walked: string[] = [];
    for (const r of restRoutes) {
      if (r.url.startsWith('/admin') || r.url.startsWith('/auth/admin')) continue;
      const stranger = await anonymous.request(r.method, fill(r.url), bodyless(r.method) ? undefined : {});
      if (stranger.status !== 401) continue;
      const key = `${r.method} ${r.url}`;
      walked.push(key);
      expect({ key, mapped: REST_SCOPES[key] !== undefined }).toEqual({ key, mapped: true });
      const right = memberRight(key, REST_SCOPES[key]!);
      const res = await team.request<unknown>(r.method, fill(r.url), bodyless(r.method) ? undefined : {});
      if (allowed(role, right)) expect({ key, status: res.status, body: res.body }).not.toMatchObject({ key, status: 403 });
      else {
        const error = roleRefusal(role, right as Exclude<typeof right, 'own' | 'any'>);
        if (typeof res.body === 'string') expect({ key, status: res.status, says: res.body.includes(error) }).toEqual({ key, status: 403, says: true });
        else expect({ key, status: res.status, body: res.body }).toEqual({ key, status: 403, body: { success: false, error, code: 'ROLE_CANNOT' } });
      }
    }
    expect(walked.sort()).toEqual(Object.keys(REST_SCOPES).sort());
  });

  it.each(TEAM_ROLES)('tRPC as %s', async (role) => {
    const all = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>);
    const call = (client: HttpClient, path: string, type: string, headers: Record<string, string> = {}) =>
      type === 'query'
        ? client.get(`/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`, headers)
        : client.post(`/trpc/${path}`, { json: {} }, headers);
    const messageOf = (body: unknown) => (body as { error?: { json?: { message?: string } } }).error?.json?.message;
    const anonymous = server.client();
    const walked: string[] = [];
    for (const [path, proc] of all) {
      const stranger = await call(anonymous, path, proc._def.type);
      if (stranger.status !== 401 || messageOf(stranger.body) !== 'Not authenticated') continue;
      walked.push(path);
      expect({ path, mapped: TRPC_SCOPES[path] !== undefined }).toEqual({ path, mapped: true });
      const right = memberRight(path, TRPC_SCOPES[path]!);
      const res = await call(members[role].client, path, proc._def.type, { [ACCOUNT]: owner.user.id });
      if (allowed(role, right)) expect({ path, status: res.status }).not.toEqual({ path, status: 403 });
      else
        expect({ path, status: res.status, message: messageOf(res.body) }).toEqual({
          path,
          status: 403,
          message: roleRefusal(role, right as Exclude<typeof right, 'own' | 'any'>),
        });
    }
    expect(walked.sort()).toEqual(Object.keys(TRPC_SCOPES).sort());
  });
});

describe("acting on the team's account", () => {
  const GB = gbToBytes(1);
  const credits = async (client: { get: HttpClient['get'] }) => (await client.get<{ user: { credits: number } }>('/auth/user')).body.user.credits;

  it("money is the team's: a finance member's gift code is paid from the team's balance, never their own", async () => {
    const owner = await signedInUser(server, 'Paying Team');
    await addCredits(server, owner.user.id, 5n * GB);
    const finance = await member(owner, 'finance');
    await addCredits(server, finance.user.id, 2n * GB);
    const team = acting(finance.client, owner.user.id);
    expect(await credits(team)).toBe(Number(5n * GB));
    const gift = await team.post<{ code: string }>('/api/gift-codes', { creditsGB: 1 });
    expect(gift.status, JSON.stringify(gift.body)).toBe(200);
    expect(await credits(owner.client)).toBe(Number(4n * GB));
    expect(await credits(finance.client)).toBe(Number(2n * GB));
    // The team's gift codes, not the member's.
    expect((await team.get<{ giftCodes: { code: string }[] }>('/api/gift-codes')).body.giftCodes.map((g) => g.code)).toEqual([gift.body.code]);
    expect((await finance.client.get<{ giftCodes: unknown[] }>('/api/gift-codes')).body.giftCodes).toEqual([]);
    const viewer = await member(owner, 'viewer');
    expect(await acting(viewer.client, owner.user.id).post('/api/gift-codes', { creditsGB: 1 })).toMatchObject({
      status: 403,
      body: { success: false, error: 'Your role (viewer) cannot spend the balance' },
    });
    expect(await credits(owner.client)).toBe(Number(4n * GB));
  });

  it('a developer makes proxy accounts and keys for the team, keys with at most its own scopes', async () => {
    const owner = await signedInUser(server, 'Dev Team');
    const dev = await member(owner, 'developer');
    const team = acting(dev.client, owner.user.id);
    const created = await team.post<{ proxyUserId?: string; account?: { proxyUserId: string } }>('/api/proxy-accounts', { name: 'scraper' });
    expect(created.status, JSON.stringify(created.body)).toBeLessThan(300);
    const ownersList = await owner.client.get<{ accounts?: { name: string }[] }>('/api/proxy-accounts');
    expect(JSON.stringify(ownersList.body)).toContain('scraper');
    expect(JSON.stringify((await dev.client.get('/api/proxy-accounts')).body)).not.toContain('scraper');

    expect(await team.post('/api/keys', { name: 'too strong', scopes: ['usage:read', 'billing:write'] })).toMatchObject({
      status: 403,
      body: { success: false, error: 'Your role (developer) cannot spend the balance' },
    });
    const key = await team.post<{ secret: string }>('/api/keys', { name: 'ci', scopes: ['usage:read', 'lines:generate'] });
    expect(key.status).toBe(201);
    const program = server.client();
    program.bearer = key.body.secret;
    expect((await program.get<{ user: { id: string } }>('/auth/user')).status).toBe(403);
    expect((await program.get('/api/usage')).status).toBe(200);
    expect((await owner.client.get<{ keys: { name: string }[] }>('/api/keys')).body.keys.map((k) => k.name)).toContain('ci');
    expect(await team.get('/api/team')).toMatchObject({ status: 403, body: { error: 'Your role (developer) cannot manage the team' } });
  });
});

describe('the audit log', () => {
  type Entry = { at: string; actor: { kind: string; id: string; name: string }; action: string; target: string | null };

  it("records members' and keys' changes (not reads) for the owner and admins", async () => {
    const owner = await signedInUser(server, 'Audited Team');
    const dev = await member(owner, 'developer');
    const admin = await member(owner, 'admin');
    await acting(dev.client, owner.user.id).request('PUT', '/api/ip-allowlist', { entries: ['203.0.113.7'] });
    const key = await owner.client.post<{ key: { id: string }; secret: string }>('/api/keys', { name: 'robot', scopes: ['accounts:write', 'accounts:read'] });
    const program = server.client();
    program.bearer = key.body.secret;
    expect((await program.post('/auth/rotate-proxy-password')).status).toBe(200);
    await program.get('/api/proxy-accounts');

    // A member's proxy account, a role changed, a key deleted: each entry names what it changed readably.
    const scraper = await acting(dev.client, owner.user.id).post<{ account: { proxyUserId: string } }>('/api/proxy-accounts', { name: 'scraper' });
    const members = (await owner.client.get<{ members: { id: string; userId: string }[] }>('/api/team')).body.members;
    const adminMember = members.find((m) => m.userId === admin.user.id)!;
    expect((await owner.client.request('PATCH', `/api/team/members/${adminMember.id}`, { role: 'admin' })).status).toBe(200);
    expect((await owner.client.request('DELETE', `/api/keys/${key.body.key.id}`)).status).toBe(200);
    expect((await owner.client.request('DELETE', '/api/keys/00000000-0000-4000-8000-000000000000')).status).toBe(404);

    const log = await owner.client.get<{ entries: Entry[] }>('/api/audit');
    expect(log.status).toBe(200);
    const entries = log.body.entries;
    expect(entries.slice(0, 6).map((e) => [e.actor.kind, e.actor.name, e.action, e.target])).toEqual([
      ['member', 'Audited Team', 'api_key.delete', 'robot'],
      ['member', 'Audited Team', 'team.set_role', `${admin.email} as admin`],
      ['member', 'developer person', 'proxy_account.create', scraper.body.account.proxyUserId],
      ['key', 'robot', 'proxy_password.rotate', null],
      ['member', 'Audited Team', 'api_key.create', 'robot'],
      ['member', 'developer person', 'allowlist.update', null],
    ]);
    expect(entries[3]!.actor.id).toBe(key.body.key.id);
    expect(entries[5]!.actor.id).toBe(dev.user.id);
    // The owner's invites (the people's acceptances are on their own accounts), oldest last.
    expect(entries.slice(6).map((e) => [e.action, e.target])).toEqual([
      ['team.invite', `${admin.email} as admin`],
      ['team.invite', `${dev.email} as developer`],
    ]);
    // Reads are not changes; every action is one of the fixed names.
    expect(entries.every((e) => (ACCOUNT_AUDIT_ACTIONS as readonly string[]).includes(e.action))).toBe(true);

    expect((await acting(admin.client, owner.user.id).get('/api/audit')).status).toBe(200);
    expect(await acting(dev.client, owner.user.id).get('/api/audit')).toMatchObject({
      status: 403,
      body: { success: false, error: 'Your role (developer) cannot read the audit log' },
    });
  });

  it('keeps 180 days: the retention pass deletes older entries only', async () => {
    const owner = await signedInUser(server, 'Old Team');
    expect((await owner.client.post('/auth/rotate-proxy-password')).status).toBe(200);
    expect((await owner.client.post('/auth/rotate-proxy-password')).status).toBe(200);
    const [first] = (await owner.client.get<{ entries: Entry[] }>('/api/audit')).body.entries.slice(-1);
    // No API ages an entry: the row is moved into the past directly.
    const old = (await server.deps.db.select().from(accountAudit).where(eq(accountAudit.accountId, owner.user.id))).find(
      (r) => r.at.toISOString() === first!.at,
    )!;
    await server.deps.db
      .update(accountAudit)
      .set({ at: new Date(Date.now() - 181 * 24 * 60 * 60 * 1000) })
      .where(eq(accountAudit.id, old.id));
    expect(await pruneAccountAudit(server.deps.db)).toBeGreaterThanOrEqual(1);
    const left = (await owner.client.get<{ entries: Entry[] }>('/api/audit')).body.entries;
    expect(left.map((e) => e.action)).toEqual(['proxy_password.rotate']);
  });

  it('names every change a user procedure can make: each mutation has its action', () => {
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
    const mutations = Object.keys(TRPC_SCOPES).filter((path) => procedures[path]?._def.type === 'mutation');
    expect(mutations.length).toBeGreaterThan(30);
    expect(mutations.filter((path) => !AUDITED_PROCEDURES[path])).toEqual([]);
    // One name for one kind of change.
    const actions = Object.values(AUDITED_PROCEDURES).map((a) => a.action);
    expect(new Set(actions).size).toBe(actions.length);
  });
});
