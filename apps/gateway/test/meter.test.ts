import { describe, expect, it, vi } from 'vitest';
import type { Backend } from '../src/backend';
import { silentLogger } from '../src/log';
import { DEFAULT_METER_OPTIONS, DOWN, UP } from '../src/meter';
import { createMeter } from '../src/report/outbox';

type Report = Parameters<Backend['report']>[0];

function fakeBackend(opts: { failReports?: number; grant?: (bytes: number) => number } = {}) {
  const reports: Report[] = [];
  let failures = opts.failReports ?? 0;
  let n = 0;
  const backend: Backend = {
    authorize: () => Promise.reject(new Error('unused')),
    authorizeAddress: () => Promise.reject(new Error('unused')),
    reserveLease: async (i) => {
      const granted = BigInt(opts.grant ? opts.grant(i.bytes) : i.bytes);
      return granted > 0n
        ? { leaseId: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, grantedBytes: granted, outcome: 'granted' }
        : { leaseId: null, grantedBytes: 0n, outcome: 'empty' };
    },
    report: async (r) => {
      reports.push(structuredClone(r));
      if (failures > 0) {
        failures -= 1;
        throw new Error('server down');
      }
      return { applied: true, dropped: [] };
    },
    releaseLeases: async () => ({ released: 0, returnedBytes: 0n }),
    upstreams: async () => ({ upstreams: [] }),
    heartbeat: async () => ({ ok: true as const }),
  };
  return { backend, reports };
}

function meter(backend: Backend, over: Partial<typeof DEFAULT_METER_OPTIONS> = {}) {
  return createMeter({ ...DEFAULT_METER_OPTIONS, initialLeaseBytes: 1000, minLeaseBytes: 1000, ...over, gatewayId: 'unit', backend, logger: silentLogger });
}

describe('meter', () => {
  it('resends a failed report unchanged (same seq), and never rejects into the void', async () => {
    const { backend, reports } = fakeBackend({ failReports: 1 });
    const m = meter(backend);
    const acc = m.account('acc-1', 'normal_proxy');
    expect(await acc.ensure(1)).toBe('granted');
    acc.countSession();
    acc.spend(300, UP);
    acc.spend(200, DOWN);
    await expect(m.flush()).rejects.toThrow('server down');
    acc.spend(50, DOWN); // new usage waits for the report after the resend
    await m.flush();
    await m.flush();
    expect(reports).toHaveLength(3);
    expect(reports[1]).toEqual(reports[0]);
    expect(reports[0]!.items).toEqual([{ leaseId: expect.any(String), bytesUp: 300, bytesDown: 200, sessions: 1, release: false }]);
    expect(reports[2]!.seq).toBeGreaterThan(reports[0]!.seq);
    expect(reports[2]!.items).toEqual([{ leaseId: expect.any(String), bytesUp: 0, bytesDown: 50, sessions: 0, release: false }]);
  });

  it('calls connections waiting for one lease in turn, each with what the ones before left: none finds its bytes gone', async () => {
    let requests = 0;
    const { backend } = fakeBackend({ grant: (bytes) => (++requests, bytes) });
    const m = meter(backend);
    const acc = m.account('acc-waiters', 'normal_proxy');
    const found: number[] = [];
    // Five connections of the account out of lease at once, each needing 600 bytes (a lease is 1,000).
    await Promise.all(
      Array.from(
        { length: 5 },
        () =>
          new Promise<void>((done) =>
            acc.whenAvailable(600, (r) => {
              expect(r).toBe('granted');
              found.push(acc.available);
              acc.spend(600, DOWN);
              done();
            }),
          ),
      ),
    );
    expect(found.every((n) => n >= 600)).toBe(true);
    expect(acc.available).toBeGreaterThanOrEqual(0);
    expect(requests).toBeGreaterThan(1);
  });

  it('spends across leases exactly, retires a used-up lease with release, and returns the rest on close', async () => {
    const { backend, reports } = fakeBackend();
    const m = meter(backend);
    const acc = m.account('acc-2', 'normal_proxy');
    await acc.ensure(1500); // two leases of the minimum size (no traffic observed yet)
    expect(acc.available).toBe(2000);
    acc.spend(1200, DOWN);
    expect(acc.available).toBe(800);
    await m.flush();
    const first = reports.at(-1)!.items;
    expect(first).toContainEqual({ leaseId: expect.any(String), bytesUp: 0, bytesDown: 200, sessions: 0, release: false });
    expect(first).toContainEqual({ leaseId: expect.any(String), bytesUp: 0, bytesDown: 1000, sessions: 0, release: true });
    await m.close();
    // Everything still held (the second lease, and the next one reserved ahead) goes back.
    const last = reports.at(-1)!.items;
    expect(last.length).toBeGreaterThanOrEqual(1);
    for (const item of last) expect(item).toMatchObject({ bytesUp: 0, bytesDown: 0, sessions: 0, release: true });
    expect(m.heldBytes()).toBe(0);
  });

  it('grants what the balance has and then says empty', async () => {
    let left = 700;
    const { backend } = fakeBackend({
      grant: (b) => {
        const g = Math.min(b, left);
        left -= g;
        return g;
      },
    });
    const acc = meter(backend, { emptyRetryMs: 60_000 }).account('acc-3', 'normal_proxy');
    expect(await acc.ensure(1000)).toBe('empty');
    expect(acc.available).toBe(700);
    expect(acc.recentlyEmpty()).toBe(true);
  });
});

describe('lease size', () => {
  it('follows the observed rate (leaseSeconds of traffic), within the minimum and the cap', async () => {
    const requested: number[] = [];
    const { backend } = fakeBackend({ grant: (b) => (requested.push(b), b) });
    const start = Date.now();
    let now = start;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const acc = meter(backend, { minLeaseBytes: 1000, maxLeaseBytes: 1_000_000, leaseSeconds: 10 }).account('acc-r', 'normal_proxy');
      await acc.ensure(1);
      now += 1000;
      acc.spend(1000, DOWN); // 1,000 B/s: the next lease is 10 s of that
      await acc.ensure(1);
      now += 100;
      acc.spend(10_000, DOWN); // 100,000 B/s: 10 s of it is past the cap
      await acc.ensure(1);
      now += 60_000;
      acc.spend(1_000_000, DOWN); // slow again: the size halves, not more
      await acc.ensure(1);
      expect(requested).toEqual([1000, 10_000, 1_000_000, 500_000]);
    } finally {
      clock.mockRestore();
    }
  });
});

describe('server unreachable', () => {
  it('lease requests back off instead of hammering the server, and succeed once it answers', async () => {
    let down = true;
    let calls = 0;
    const { backend } = fakeBackend();
    const reserve = backend.reserveLease;
    backend.reserveLease = (i) => {
      calls += 1;
      return down ? Promise.reject(new Error('ECONNREFUSED')) : reserve(i);
    };
    const acc = meter(backend).account('acc-o', 'normal_proxy');
    expect(await acc.ensure(1)).toBe('error');
    for (let i = 0; i < 50; i++) expect(await acc.ensure(1)).toBe('error');
    expect(calls).toBe(1);
    expect(acc.retryAt).toBeGreaterThan(Date.now());
    down = false;
    await new Promise((r) => setTimeout(r, acc.retryAt - Date.now() + 5));
    expect(await acc.ensure(1)).toBe('granted');
    expect(calls).toBe(2);
  });

  it('keeps every unreported byte through failed reports and delivers it when the server is back', async () => {
    const { backend, reports } = fakeBackend({ failReports: 5 });
    const m = meter(backend);
    const acc = m.account('acc-k', 'normal_proxy');
    await acc.ensure(1);
    let spent = 0;
    for (let i = 0; i < 5; i++) {
      acc.spend(100, DOWN);
      spent += 100;
      await expect(m.flush()).rejects.toThrow('server down');
    }
    await m.flush(); // the report that failed five times, unchanged
    await m.flush(); // what was spent meanwhile
    const applied = [reports.at(-2)!, reports.at(-1)!];
    expect(applied[0]!.seq).toBe(reports[0]!.seq);
    expect(applied.flatMap((r) => r.items).reduce((n, i) => n + i.bytesDown, 0)).toBe(spent);
  });
});
