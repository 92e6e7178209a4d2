/**
 * Plans as the operator sets them (`/admin/plans`, finance and owner) and as everyone reads them
 * (`GET /api/plans`, no sign-in): exact fields, bad input a 400 naming the field with nothing
 * written, changes audited.
 */
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, plans } from '@proxyhub/db';
import { adminClient } from './credits-helpers';
import { startTestServer, type HttpClient, type TestServer } from './helpers';

type Plan = { id: string; name: string; gbPerPeriod: number; priceCents: number; period: string; rollover: boolean; active: boolean };
type AdminPlan = Plan & { subscribers: number; revenueCentsThisMonth: number };

let server: TestServer;
let admin: HttpClient;
let anonymous: HttpClient;
beforeAll(async () => {
  server = await startTestServer();
  admin = await adminClient(server);
  anonymous = server.client();
});
afterAll(() => server.close());

const create = async (body: Record<string, unknown>) => {
  const r = await admin.post<{ success: boolean; plan: Plan }>('/admin/plans', body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.plan;
};

describe('plans', () => {
  it('are created, listed, changed, deactivated and deleted by an admin; the public list shows the active ones', async () => {
    const monthly = await create({ name: 'Starter 50', gbPerPeriod: 50, priceCents: 3500, period: 'month', rollover: true });
    expect(monthly).toEqual({ id: expect.any(String), name: 'Starter 50', gbPerPeriod: 50, priceCents: 3500, period: 'month', rollover: true, active: true });
    const weekly = await create({ name: 'Weekly 20', gbPerPeriod: 20, priceCents: 1500, period: 'week' });
    expect(weekly).toMatchObject({ rollover: false, active: true });

    const all = await admin.get<{ plans: AdminPlan[] }>('/admin/plans');
    expect(all.status).toBe(200);
    // Cheapest first.
    expect(all.body.plans.map((p) => p.name)).toEqual(['Weekly 20', 'Starter 50']);
    const open = await anonymous.get<{ plans: Plan[] }>('/api/plans');
    expect(open.status).toBe(200);
    // The admin's list adds each plan's subscribers and this month's revenue (none yet).
    expect(all.body.plans.map(({ subscribers, revenueCentsThisMonth, ...p }) => ({ ...p, n: [subscribers, revenueCentsThisMonth] }))).toEqual(
      open.body.plans.map((p) => ({ ...p, n: [0, 0] })),
    );

    const changed = await admin.request<{ success: boolean; plan: Plan }>('PATCH', `/admin/plans/${monthly.id}`, { priceCents: 3000, name: 'Starter' });
    expect(changed).toMatchObject({ status: 200, body: { success: true, plan: { name: 'Starter', priceCents: 3000, gbPerPeriod: 50 } } });
    const off = await admin.request<{ plan: Plan }>('PATCH', `/admin/plans/${weekly.id}`, { active: false });
    expect(off.body.plan.active).toBe(false);
    // Inactive: gone from the public list, still in the admin's.
    expect((await anonymous.get<{ plans: Plan[] }>('/api/plans')).body.plans.map((p) => p.name)).toEqual(['Starter']);
    expect((await admin.get<{ plans: Plan[] }>('/admin/plans')).body.plans).toHaveLength(2);

    expect(await admin.request('DELETE', `/admin/plans/${weekly.id}`)).toMatchObject({ status: 200, body: { success: true } });
    expect(await admin.request('DELETE', `/admin/plans/${weekly.id}`)).toMatchObject({ status: 404, body: { success: false, error: 'Plan not found' } });
    expect(await admin.request('PATCH', '/admin/plans/not-a-uuid', { active: true })).toMatchObject({ status: 404 });

    const audited = await server.deps.db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(inArray(auditLog.action, ['admin.createPlan', 'admin.updatePlan', 'admin.deletePlan']));
    expect(audited.map((a) => a.action).sort()).toEqual(['admin.createPlan', 'admin.createPlan', 'admin.deletePlan', 'admin.updatePlan', 'admin.updatePlan']);
  });

  it('refuses bad input with a 400 naming it, and writes nothing', async () => {
    const before = (await server.deps.db.select().from(plans)).length;
    const base = { name: 'Bad', gbPerPeriod: 10, priceCents: 2000, period: 'month' };
    for (const [patch, error] of [
      [{ gbPerPeriod: 0 }, 'GB per period must be at least 1'],
      [{ gbPerPeriod: 2.5 }, 'GB per period must be a whole number'],
      [{ priceCents: -100 }, 'Price must be at least $10.00'],
      [{ priceCents: 999 }, 'Price must be at least $10.00'],
      [{ period: 'year' }, 'Period must be month or week'],
      [{ name: '  ' }, 'Name is required'],
      [{ rollover: 'yes' }, 'Rollover must be true or false'],
    ] as const) {
      const r = await admin.post('/admin/plans', { ...base, ...patch });
      expect(r, JSON.stringify(patch)).toMatchObject({ status: 400, body: { success: false, error } });
    }
    const plan = await create(base);
    expect(await admin.request('PATCH', `/admin/plans/${plan.id}`, {})).toMatchObject({ status: 400, body: { error: 'Give at least one field to change' } });
    expect(await admin.request('PATCH', `/admin/plans/${plan.id}`, { gbPerPeriod: -1 })).toMatchObject({
      status: 400,
      body: { error: 'GB per period must be at least 1' },
    });
    const [row] = await server.deps.db.select().from(plans).where(eq(plans.id, plan.id));
    expect(row).toMatchObject({ gbPerPeriod: 10, priceCents: 2000 });
    expect((await server.deps.db.select().from(plans)).length).toBe(before + 1);
  });

  it('are the admin panel’s: a signed-out caller and a customer get 401 and 403', async () => {
    expect((await anonymous.get('/admin/plans')).status).toBe(401);
    expect((await anonymous.post('/admin/plans', { name: 'X', gbPerPeriod: 1, priceCents: 1000, period: 'week' })).status).toBe(401);
  });
});
