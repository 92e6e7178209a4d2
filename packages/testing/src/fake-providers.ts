/**
 * Fakes of the upstream providers' account APIs on loopback, one per provider, each answering as
 * the page docs/reselling.md cites for it (and refusing a wrong key with 401): a balance the test
 * sets (and drains, and refills) and a count per UTC day. Where a page leaves something out (IPRoyal's
 * CSV column names, SOAX's traffic paths) the fake's choice is said where it is made. `calls` counts the balance reads, so a
 * test can tell how often the fleet asked.
 */
import { startFakeJsonApi, type FakeApiRequest } from './fakes';

export type FakeProviderName = 'custom' | 'oxylabs' | 'brightdata' | 'decodo' | 'iproyal' | 'soax';

const GB = 1073741824n;

/** Bytes as a decimal number of GB (exact for the amounts tests use). */
export function gbText(bytes: bigint): string {
  const frac = ((bytes % GB) * 1_000_000_000n) / GB;
  const text = `${bytes / GB}.${frac.toString().padStart(9, '0')}`.replace(/\.?0+$/, '');
  return text === '' ? '0' : text;
}

export interface FakeProvider {
  provider: FakeProviderName;
  /** The API's base address. */
  url: string;
  /** The key it accepts. */
  key: string;
  balanceBytes: bigint;
  /** The provider's count per UTC day (`YYYY-MM-DD`). */
  usage: Map<string, bigint>;
  /** Balance reads answered with the right key (IPRoyal: every `/me`, the usage calls' too). */
  calls: number;
  requests: FakeApiRequest[];
  /** IPRoyal: when set, the usage report's body as the test writes it (a malformed CSV). */
  usageCsv: string | null;
  /** The `account` of an upstream that reads this fake. */
  account(extra?: Record<string, unknown>): Record<string, unknown>;
  close(): Promise<void>;
}

/** Bright Data's zone and SOAX's package, as the upstream's username template names them. */
export const FAKE_ZONE = 'resi_zone1';
export const FAKE_PACKAGE = '123456';
/** The IPRoyal account's `residential_user_hash`, the one its usage report answers for. */
export const FAKE_IPROYAL_HASH = '01H7ZK3QX5RESELLER0000000';
/** The username template an upstream of this provider needs for the fake (zone, package). */
export function fakeProviderTemplate(provider: FakeProviderName): string {
  if (provider === 'brightdata') return `brd-customer-c_1-zone-${FAKE_ZONE}-country-{country|lower}`;
  if (provider === 'soax') return `package-${FAKE_PACKAGE}-country-{country|lower}`;
  return 'user-{country}';
}
/** Bright Data answers dollars: the fake's balance is read at this cost per GB. */
export const FAKE_BRIGHTDATA_CENTS_PER_GB = 400;

export async function startFakeProvider(provider: FakeProviderName, opts: { key?: string; balanceBytes?: bigint } = {}): Promise<FakeProvider> {
  const key = opts.key ?? `${provider}-key-0123456789`;
  const state = {
    provider,
    url: '',
    key,
    balanceBytes: opts.balanceBytes ?? 10n * GB,
    usage: new Map<string, bigint>(),
    calls: 0,
    requests: [] as FakeApiRequest[],
    usageCsv: null as string | null,
  };
  const dayOf = (d: string | null) => state.usage.get(d ?? '') ?? 0n;
  /**
   * IPRoyal's data usage report: a CSV of the days asked that have traffic (headers only when none
   * do), in the unit and decimals asked. The page does not publish the CSV's column names: `Date`
   * and `Traffic (<unit>)` are the fake's own. The fake keeps UTC days, so it answers `time_zone=UTC`
   * only (the page leaves it optional without saying its default).
   */
  const iproyalReport = (p: URLSearchParams, sendText: (status: number, text: string, contentType: string) => void) => {
    const invalid = (field: string) => sendText(422, JSON.stringify({ error: `The ${field} field is invalid.` }), 'application/json');
    const [hash, from, to, unit, decimals] = ['hash', 'date_from', 'date_to', 'measurement_unit', 'rounding_decimal'].map((k) => p.get(k));
    const isDay = (d: string | null | undefined) => !!d && /^\d{4}-\d{2}-\d{2}$/.test(d) && !Number.isNaN(Date.parse(`${d}T00:00:00Z`));
    if (!hash) return invalid('hash');
    if (!isDay(from) || !isDay(to)) return invalid('date_from');
    const unitDivisor = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[unit ?? ''];
    if (!unitDivisor) return invalid('measurement_unit');
    if (!decimals || !/^\d+$/.test(decimals)) return invalid('rounding_decimal');
    if (p.get('time_zone') !== 'UTC') return invalid('time_zone');
    // A hash that is not this account's: the page says it must belong to the caller.
    if (hash !== FAKE_IPROYAL_HASH) return sendText(403, JSON.stringify({ error: 'This action is unauthorized.' }), 'application/json');
    if (state.usageCsv !== null) return sendText(200, state.usageCsv, 'text/csv');
    const amount = (bytes: bigint) => (unit === 'B' && decimals === '0' ? bytes.toString() : (Number(bytes) / unitDivisor).toFixed(Number(decimals)));
    const rows = [...state.usage.entries()]
      .filter(([day]) => day >= from! && day <= to!)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([day, bytes]) => `${day},${amount(bytes)}`);
    return sendText(200, [`Date,Traffic (${unit})`, ...rows].map((line) => `${line}\r\n`).join(''), 'text/csv');
  };
  const api = await startFakeJsonApi((req, send, sendText) => {
    state.requests.push(req);
    const url = new URL(req.url, 'http://fake');
    const q = (k: string) => url.searchParams.get(k);
    const auth = req.headers.authorization ?? '';
    const path = url.pathname;
    const refuse = () => send(401, { error: 'Invalid credentials' });
    switch (provider) {
      case 'custom':
        if (auth !== `Bearer ${key}`) return refuse();
        if (path === '/balance') {
          state.calls++;
          return send(200, { bytes: state.balanceBytes.toString() });
        }
        if (path === '/usage') return send(200, { date: q('date'), bytes: Number(dayOf(q('date'))) });
        return send(404, { error: 'not found' });
      case 'oxylabs':
        if (req.method === 'POST' && path === '/login') {
          if (auth !== `Basic ${Buffer.from(key).toString('base64')}`) return refuse();
          return send(200, { user_id: 'u-1', token: 'jwt-token-1' });
        }
        if (auth !== 'Bearer jwt-token-1') return refuse();
        if (path === '/users/u-1/client-stats') {
          if (q('type') === 'custom') return send(200, { traffic: gbText(dayOf(q('from'))) });
          state.calls++;
          const used = 3n * GB;
          return send(200, { traffic: Number(gbText(used)), traffic_limit: Number(gbText(used + state.balanceBytes)), is_traffic_limited: true });
        }
        return send(404, { error: 'not found' });
      case 'brightdata':
        if (auth !== `Bearer ${key}`) return refuse();
        if (path === '/customer/balance') {
          state.calls++;
          const cents = (state.balanceBytes * BigInt(FAKE_BRIGHTDATA_CENTS_PER_GB)) / GB;
          return send(200, { balance: Number(cents) / 100, pending_balance: 0 });
        }
        if (path === '/zone/bw') {
          const day = (q('from') ?? '').slice(0, 10);
          const bytes = dayOf(day);
          return send(200, {
            c_1: {
              customer_id: 'c_1',
              from: q('from'),
              to: q('to'),
              data: { [q('zone') ?? '']: { bw_sum: [Number(bytes)], bw_up: [0], bw_dn: [Number(bytes)] } },
            },
          });
        }
        return send(404, { error: 'not found' });
      case 'decodo':
        if (auth !== key) return refuse();
        if (path === '/v2/subscriptions') {
          state.calls++;
          return send(200, [
            {
              service_type: 'residential_proxies',
              traffic_limit: gbText(2n * GB + state.balanceBytes),
              traffic: gbText(2n * GB),
              valid_from: '2026-11-01',
              valid_until: '2026-12-01',
            },
          ]);
        }
        if (req.method === 'POST' && path === '/api/v2/statistics/traffic') {
          const body = JSON.parse(req.body || '{}') as { startDate?: string };
          const day = (body.startDate ?? '').slice(0, 10);
          return send(200, { data: [{ key: day, rx_tx_bytes: Number(dayOf(day)) }] });
        }
        return send(404, { error: 'not found' });
      case 'iproyal':
        if (auth !== `Bearer ${key}`) return refuse();
        if (path === '/me') {
          state.calls++;
          return send(200, { available_traffic: Number(gbText(state.balanceBytes)), subusers_count: 13, residential_user_hash: FAKE_IPROYAL_HASH });
        }
        if (path === '/residential/data-usage-report') return iproyalReport(url.searchParams, sendText);
        return send(404, { error: 'not found' });
      case 'soax':
        // SOAX takes the key in the `api-key` header; one in the query string is refused outright.
        // The two paths are the adapter's: SOAX's public API description does not list them.
        if (url.searchParams.has('api_key') || url.searchParams.has('api-key')) return send(400, { error: 'Send the API key in the api-key header' });
        if (req.headers['api-key'] !== key) return refuse();
        if (path === `/v1/packages/${FAKE_PACKAGE}`) {
          state.calls++;
          return send(200, { package_id: Number(FAKE_PACKAGE), traffic_left: Number(state.balanceBytes) });
        }
        if (path === `/v1/packages/${FAKE_PACKAGE}/traffic`) return send(200, { traffic: dayOf(q('date_from')).toString() });
        return send(404, { error: 'not found' });
    }
  });
  state.url = api.url.replace(/\/+$/, '');
  const fake: FakeProvider = Object.assign(state, {
    account(extra: Record<string, unknown> = {}) {
      const urls = provider === 'custom' ? { balanceUrl: `${state.url}/balance`, usageUrl: `${state.url}/usage` } : { balanceUrl: state.url };
      return { provider, apiKey: key, ...urls, ...extra };
    },
    close: () => api.close(),
  });
  return fake;
}
