/**
 * The gateway's Prometheus metrics, one registry per gateway. The rest of the gateway reports
 * events here with one-line calls (a connection, a handshake's outcome, bytes spent); calls to the
 * server are timed by wrapping the backend. Counters only on the data path: no allocation per chunk.
 */
import { Counter, Gauge, Histogram, Registry, type CounterConfiguration } from 'prom-client';
import type { Backend } from './backend';
import type { ProtocolName } from './protocols/answers';
import type { RefusalKind } from './protocols/handshake';

/** Refusals that are the login's answer (auth results); the rest are the protocol's or the tunnel's. */
const AUTH_REFUSALS = new Set<RefusalKind>(['missing', 'bad_username', 'bad_credentials', 'limited', 'disabled', 'bad_location', 'unavailable']);
/** Refusals because the target or the upstream provider could not be reached. */
const UPSTREAM_REFUSALS = new Set<RefusalKind>(['dns', 'refused', 'unreachable', 'timeout', 'upstream']);
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface GatewayGauges {
  connections: number;
  tunnels: number;
  accounts: number;
  heldBytes: number;
}

export class GatewayMetrics {
  readonly registry = new Registry();
  /** When a call to the server last succeeded (ms since the epoch; 0: never). */
  lastServerContactAt = 0;
  /**
   * What every connection and chunk counts, as plain numbers that the counters read when scraped:
   * prom-client hashes the labels on each inc(), which was a cost per connection and per chunk.
   */
  private readonly counts = { http: 0, socks5: 0, authOk: 0, up: 0, down: 0 };
  private readonly auth: Counter<'result'>;
  private readonly refusals: Counter<'protocol' | 'kind'>;
  private readonly upstreamErrors: Counter<'kind'>;
  private readonly serverCalls: Record<keyof Backend, Histogram<'outcome'>>;

  constructor(gauges: () => GatewayGauges) {
    const registers = [this.registry];
    const counter = <L extends string>(c: CounterConfiguration<L>) => new Counter<L>({ ...c, registers });
    const counts = this.counts;
    counter({
      name: 'gateway_connections_total',
      help: 'Client connections accepted, by protocol (http, socks5)',
      labelNames: ['protocol'],
      collect() {
        this.reset();
        if (counts.http) this.inc({ protocol: 'http' }, counts.http);
        if (counts.socks5) this.inc({ protocol: 'socks5' }, counts.socks5);
      },
    });
    let authOkScraped = 0;
    this.auth = counter({
      name: 'gateway_auth_results_total',
      help: 'Proxy logins by result: ok, or the refusal (bad_credentials, limited, disabled, ...)',
      labelNames: ['result'],
      // Refusals are counted as they come (rare); good logins (every connection) at each scrape.
      collect() {
        if (counts.authOk > authOkScraped) this.inc({ result: 'ok' }, counts.authOk - authOkScraped);
        authOkScraped = counts.authOk;
      },
    });
    this.refusals = counter({ name: 'gateway_refusals_total', help: 'Requests refused, by protocol and reason', labelNames: ['protocol', 'kind'] });
    this.upstreamErrors = counter({
      name: 'gateway_upstream_errors_total',
      help: 'Targets or upstream proxies that could not be reached, by kind (dns, refused, unreachable, timeout, upstream)',
      labelNames: ['kind'],
    });
    counter({
      name: 'gateway_bytes_total',
      help: 'Bytes relayed and metered, by direction (up: client to target)',
      labelNames: ['direction'],
      collect() {
        this.reset();
        if (counts.up) this.inc({ direction: 'up' }, counts.up);
        if (counts.down) this.inc({ direction: 'down' }, counts.down);
      },
    });
    const histogram = (name: string, help: string) => new Histogram<'outcome'>({ name, help, labelNames: ['outcome'], buckets: LATENCY_BUCKETS, registers });
    this.serverCalls = {
      authorize: histogram('gateway_authorize_duration_seconds', 'Credential checks at the server (cache misses), by outcome'),
      authorizeAddress: histogram('gateway_authorize_address_duration_seconds', 'Password-less source address checks at the server (cache misses), by outcome'),
      reserveLease: histogram('gateway_lease_duration_seconds', 'Byte lease requests to the server, by outcome'),
      report: histogram('gateway_report_duration_seconds', 'Usage reports to the server, by outcome'),
      releaseLeases: histogram('gateway_release_duration_seconds', 'Lease returns to the server, by outcome'),
      upstreams: histogram('gateway_upstreams_duration_seconds', 'Reads of the upstream pool list, by outcome'),
      heartbeat: histogram('gateway_heartbeat_duration_seconds', 'Fleet heartbeats to the server, by outcome'),
      targetPolicy: histogram('gateway_target_policy_duration_seconds', 'Reads of the target policy, by outcome'),
    };
    const gauge = (name: string, help: string, read: (g: GatewayGauges) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read(gauges()));
        },
      });
    gauge('gateway_open_connections', 'Client connections open now', (g) => g.connections);
    gauge('gateway_open_tunnels', 'Tunnels relaying now', (g) => g.tunnels);
    gauge('gateway_metered_accounts', 'Proxy accounts holding leases or connections', (g) => g.accounts);
    gauge('gateway_leased_bytes', 'Bytes held in leases and not yet spent', (g) => g.heldBytes);
  }

  connection(protocol: ProtocolName): void {
    this.counts[protocol] += 1;
  }

  /** A handshake's outcome, the login included (null: the client went away). */
  handshake(protocol: ProtocolName, r: { ok: true } | { ok: false; kind: RefusalKind } | null): void {
    if (r === null) return;
    if (r.ok) {
      this.counts.authOk += 1;
      return;
    }
    this.refusals.inc({ protocol, kind: r.kind });
    if (AUTH_REFUSALS.has(r.kind)) this.auth.inc({ result: r.kind });
  }

  /** After a good login: no lease (empty, disabled) or no target. */
  tunnelRefused(protocol: ProtocolName, kind: RefusalKind): void {
    this.refusals.inc({ protocol, kind });
    if (UPSTREAM_REFUSALS.has(kind)) this.upstreamErrors.inc({ kind });
  }

  /** Bytes spent from a lease; `dir` is meter.ts's UP (0) or DOWN (1). */
  spent(n: number, dir: number): void {
    if (dir === 0) this.counts.up += n;
    else this.counts.down += n;
  }

  /** The same backend, each call timed and its success noted (readiness). */
  instrument(backend: Backend): Backend {
    const timed = async <T>(name: keyof Backend, call: () => Promise<T>): Promise<T> => {
      const end = this.serverCalls[name].startTimer();
      try {
        const r = await call();
        end({ outcome: 'ok' });
        this.lastServerContactAt = Date.now();
        return r;
      } catch (err) {
        end({ outcome: 'error' });
        throw err;
      }
    };
    return {
      authorize: (input) => timed('authorize', () => backend.authorize(input)),
      reserveLease: (input) => timed('reserveLease', () => backend.reserveLease(input)),
      report: (input) => timed('report', () => backend.report(input)),
      releaseLeases: (input) => timed('releaseLeases', () => backend.releaseLeases(input)),
      authorizeAddress: (input) => timed('authorizeAddress', () => backend.authorizeAddress(input)),
      upstreams: () => timed('upstreams', () => backend.upstreams()),
      heartbeat: (input) => timed('heartbeat', () => backend.heartbeat(input)),
      ...(backend.targetPolicy ? { targetPolicy: () => timed('targetPolicy', () => backend.targetPolicy!()) } : {}),
    };
  }
}
