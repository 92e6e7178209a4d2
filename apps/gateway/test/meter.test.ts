import { describe, expect, it } from 'vitest';
import type { Backend } from '../src/backend';
import { silentLogger } from '../src/log';
import { DEFAULT_METER_OPTIONS, DOWN, Meter, UP } from '../src/meter';

type Report = Parameters<Backend['report']>[0];

function fakeBackend(opts: { failReports?: number; grant?: (bytes: number) => number } = {}) {
  const reports: Report[] = [];
  let failures = opts.failReports ?? 0;
  let n = 0;
  const backend: Backend = {
    authorize: () => Promise.reject(new Error('unused')),
    reserveLease: async (i) => {
      const granted = BigInt(opts.grant ? opts.grant(i.bytes) : i.bytes);
      return granted > 0n
        ? { leaseId: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, grantedBytes: granted, balanceBytes: 0n, outcome: 'granted' }
        : { leaseId: null, grantedBytes: 0n, balanceBytes: 0n, outcome: 'empty' };
    },
    report: async (r) => {
      reports.push(structuredClone(r));
      if (failures > 0) {
        failures -= 1;
        throw new Error('server down');
      }
      return { applied: true, dropped: [] };
    },
    releaseLeases: async () => ({ released: 0 }),
  };
  return { backend, reports };
}

function meter(backend: Backend, over: Partial<typeof DEFAULT_METER_OPTIONS> = {}) {
  return new Meter({ ...DEFAULT_METER_OPTIONS, initialLeaseBytes: 1000, minLeaseBytes: 1000, ...over, gatewayId: 'unit', backend, logger: silentLogger });
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

  it('spends across leases exactly, retires a used-up lease with release, and returns the rest on close', async () => {
    const { backend, reports } = fakeBackend();
    const m = meter(backend);
    const acc = m.account('acc-2', 'normal_proxy');
    await acc.ensure(1500); // two leases: 1000 + 2000 (the size doubles while they run out fast)
    expect(acc.available).toBe(3000);
    acc.spend(1200, DOWN);
    expect(acc.available).toBe(1800);
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
