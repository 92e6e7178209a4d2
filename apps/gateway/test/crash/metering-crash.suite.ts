import { afterEach, describe, expect, it } from 'vitest';
import { billing, download, startPacedTarget, startProduct, userWithGB, type Download, type Product } from './processes';

const MiB = 1024 * 1024;
const RATE = 4 * MiB;

let product: Product | null = null;
let target: Awaited<ReturnType<typeof startPacedTarget>> | null = null;

const delivered = (ds: Download[]) => ds.reduce((n, d) => n + d.sent + d.received, 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('metering survives kill -9', () => {
  afterEach(async () => {
    // After a failure: nothing left running.
    await product?.gateway.stop('SIGKILL');
    await product?.server.stop('SIGKILL');
    await target?.close();
    product = null;
    target = null;
  });

  it('server killed mid-transfer and down for 10 s: CONNECT and SOCKS5 downloads pause and finish; billed usage matches what the clients got', async () => {
    // Short leases (2 s of traffic), so the tunnels certainly run out of lease during the outage.
    product = await startProduct({ GATEWAY_LEASE_SECONDS: '2' });
    target = await startPacedTarget();
    const u = await userWithGB(product, 1);
    const bytes = 28 * MiB;
    const downloads = await Promise.all([
      download(product.gatewayPort, u, 'connect', target.port, bytes, RATE),
      download(product.gatewayPort, u, 'socks5', target.port, bytes, RATE),
    ]);
    await sleep(3000);
    await product.server.stop('SIGKILL');
    await sleep(10_000);
    await product.server.start();
    await Promise.all(downloads.map((d) => d.done));

    for (const d of downloads) {
      // Every byte arrived: the tunnel was never closed by the outage...
      expect(d.received, d.protocol).toBeGreaterThan(bytes);
      // ...it waited for the server (its leases ran out) and went on when the server was back.
      expect(d.longestStallMs, d.protocol).toBeGreaterThan(2000);
    }
    // The gateway delivered the usage it kept through the outage; its graceful stop returns the rest.
    await product.gateway.stop();
    const billed = await billing(u);
    const got = delivered(downloads);
    expect(Math.abs(billed.usage - got), `billed ${billed.usage}, delivered ${got}`).toBeLessThanOrEqual(got * 0.01);
    expect(billed.credits + billed.usage).toBe(1024 * MiB);
    await product.stopAndCheckLedger([u.id]);
  });

  it('gateway killed mid-transfer and restarted: the journal bills what the clients got, within 1 MiB', async () => {
    product = await startProduct();
    target = await startPacedTarget();
    const u = await userWithGB(product, 1);
    const downloads = await Promise.all([
      download(product.gatewayPort, u, 'connect', target.port, 200 * MiB, RATE),
      download(product.gatewayPort, u, 'socks5', target.port, 200 * MiB, RATE),
    ]);
    await sleep(4000);
    await product.gateway.stop('SIGKILL');
    await Promise.all(downloads.map((d) => d.done));
    const got = delivered(downloads);
    expect(got).toBeGreaterThan(2 * 10 * MiB);

    // The restarted gateway delivers its journal before it listens (it is ready only then).
    await product.gateway.start();
    const billed = await billing(u);
    expect(Math.abs(billed.usage - got), `billed ${billed.usage}, delivered ${got}`).toBeLessThanOrEqual(got * 0.01 + MiB);
    expect(billed.credits + billed.usage).toBe(1024 * MiB);
    await product.stopAndCheckLedger([u.id]);
  });
});
