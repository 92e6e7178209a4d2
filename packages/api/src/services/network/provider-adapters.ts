/**
 * The provider adapters: one interface, one adapter per provider, each giving the two figures the
 * server needs from an upstream's account: its balance (traffic left, bytes) and its usage for one
 * UTC day (bytes, as the provider bills it). `custom` is our own contract; the named providers are
 * read over their public APIs (docs/reselling.md cites the page each follows).
 *
 * Every call goes through `requestChecked` (outbound-http.ts): https only (http to loopback where
 * private targets are allowed), private and metadata hosts refused at every call, answers capped at
 * 64 KiB and 10 s. A failed call is a ProviderError with its reason, never a zero: a zero would
 * take a pool out of routing (dry) or hide a day's drift.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { BYTES_PER_GB, type UpstreamProvider } from '@proxyhub/core';
import { requestChecked, type OutboundPolicy } from '../lib/outbound-http';

/** An answer larger than this is refused. */
export const PROVIDER_MAX_ANSWER_BYTES = 64 * 1024;
/** A provider that has not answered within this has failed the check. */
export const PROVIDER_TIMEOUT_MS = 10_000;

/** What an adapter needs of an upstream and its account (the key in clear). */
export interface ProviderAccount {
  provider: UpstreamProvider;
  apiKey: string;
  balanceUrl: string | null;
  usageUrl: string | null;
  /** The upstream's price per GB: a provider that keeps a money balance is read as traffic at it. */
  costPerGbCents: number;
  /** The upstream's username template, where a provider's zone or package id is written. */
  usernameTemplate: string;
}

export interface ProviderAdapter {
  /** Traffic left at the provider, in bytes. */
  balance(account: ProviderAccount, policy: OutboundPolicy): Promise<bigint>;
  /** What the provider metered for one UTC day (`YYYY-MM-DD`), in bytes. */
  usage(account: ProviderAccount, date: string, policy: OutboundPolicy): Promise<bigint>;
}

/** A check that failed: `message` is the reason the admin reads (status `error`). */
export class ProviderError extends Error {}

const malformed = (what: string) => new ProviderError(`Malformed answer: ${what}`);

interface ProviderRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  json?: unknown;
  label: string;
}

/** One request to a provider, its 2xx body as text; any failure becomes a ProviderError with its reason. */
async function requestText(raw: string, policy: OutboundPolicy, opts: ProviderRequest & { accept: string }): Promise<string> {
  let answer;
  try {
    answer = await requestChecked(
      raw,
      policy,
      {
        method: opts.method ?? 'GET',
        headers: {
          accept: opts.accept,
          'user-agent': 'ProxyHub-Upstreams/1',
          ...(opts.json === undefined ? {} : { 'content-type': 'application/json' }),
          ...opts.headers,
        },
        body: opts.json === undefined ? undefined : JSON.stringify(opts.json),
        timeoutMs: PROVIDER_TIMEOUT_MS,
        maxBodyBytes: PROVIDER_MAX_ANSWER_BYTES,
      },
      opts.label,
    );
  } catch (err) {
    throw new ProviderError(err instanceof Error ? err.message : String(err));
  }
  if (answer.status < 200 || answer.status > 299) throw new ProviderError(`HTTP ${answer.status} from ${new URL(raw).host}`);
  return answer.body;
}

/** One JSON request to a provider (`requestText`, parsed). */
async function requestJson(raw: string, policy: OutboundPolicy, opts: ProviderRequest): Promise<unknown> {
  const text = await requestText(raw, policy, { ...opts, accept: 'application/json' });
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw malformed('not JSON');
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The most bytes a figure may say (a bigint column's range; 8 EiB is no real account). */
const MAX_BYTES = 2n ** 63n - 1n;

/** A whole number of bytes, 0 or more: an integer or a string of digits (beyond 2^53 too). */
export function bytesValue(v: unknown, what: string): bigint {
  let n: bigint | null = null;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) n = BigInt(v);
  if (typeof v === 'string' && /^\d{1,19}$/.test(v)) n = BigInt(v);
  if (n === null || n > MAX_BYTES) throw malformed(`${what} is not a whole number of bytes`);
  return n;
}

/** A decimal amount, 0 or more (GB or dollars), as a number or a numeric string: [units, millionths]. */
function decimalValue(v: unknown, what: string): bigint {
  const text = typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v.toFixed(6) : v;
  const m = typeof text === 'string' ? /^(\d{1,15})(?:\.(\d{1,20}))?$/.exec(text) : null;
  if (!m) throw malformed(`${what} is not a number`);
  return BigInt(m[1]!) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0').slice(0, 6));
}

/** A GB amount (providers count in GB of 2^30 bytes) to bytes, rounded to the byte. */
export const gbValue = (v: unknown, what: string): bigint => (decimalValue(v, what) * BYTES_PER_GB + 500_000n) / 1_000_000n;

function withQuery(raw: string, params: Record<string, string>): string {
  const url = new URL(raw);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

/** The day after a `YYYY-MM-DD`. */
const nextDay = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

const bearer = (a: ProviderAccount): Record<string, string> => (a.apiKey ? { authorization: `Bearer ${a.apiKey}` } : {});

/** A named provider's API base: the account's URL when set (a regional endpoint, a test double), else the documented one. */
const baseOf = (url: string | null, documented: string) => (url ?? documented).replace(/\/+$/, '');

/**
 * `custom`: `GET <balanceUrl>` answers `{ "bytes": N }`, `GET <usageUrl>?date=YYYY-MM-DD` answers
 * `{ "date": "YYYY-MM-DD", "bytes": N }`, both with `Authorization: Bearer <apiKey>`.
 */
const custom: ProviderAdapter = {
  async balance(a, policy) {
    if (!a.balanceUrl) throw new ProviderError('No balance URL');
    const body = await requestJson(a.balanceUrl, policy, { headers: bearer(a), label: 'Balance URL' });
    if (!isObject(body)) throw malformed('expected { "bytes": N }');
    return bytesValue(body.bytes, 'bytes');
  },
  async usage(a, date, policy) {
    if (!a.usageUrl) throw new ProviderError('No usage URL');
    const body = await requestJson(withQuery(a.usageUrl, { date }), policy, { headers: bearer(a), label: 'Usage URL' });
    if (!isObject(body)) throw malformed('expected { "date": "YYYY-MM-DD", "bytes": N }');
    if (body.date !== date) throw malformed(`date is ${JSON.stringify(body.date)}, asked for ${date}`);
    return bytesValue(body.bytes, 'bytes');
  },
};

/**
 * Oxylabs residential Public API: `POST /login` with the main user's `username:password` (Basic)
 * answers `{ user_id, token }`; `GET /users/{user_id}/client-stats` (Bearer token) answers the
 * month's `traffic` and the plan's `traffic_limit` in GB; with `type=custom&from&till` the traffic
 * of those days.
 */
const OXYLABS_API = 'https://residential-api.oxylabs.io/v2';
async function oxylabsLogin(base: string, a: ProviderAccount, policy: OutboundPolicy) {
  const body = await requestJson(`${base}/login`, policy, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(a.apiKey).toString('base64')}` },
    label: 'Balance URL',
  });
  if (!isObject(body) || typeof body.token !== 'string' || (typeof body.user_id !== 'string' && typeof body.user_id !== 'number')) {
    throw malformed('login answered no user_id and token');
  }
  return { userId: encodeURIComponent(String(body.user_id)), headers: { authorization: `Bearer ${body.token}` } };
}
const oxylabs: ProviderAdapter = {
  async balance(a, policy) {
    const base = baseOf(a.balanceUrl, OXYLABS_API);
    const { userId, headers } = await oxylabsLogin(base, a, policy);
    const body = await requestJson(`${base}/users/${userId}/client-stats`, policy, { headers, label: 'Balance URL' });
    if (!isObject(body)) throw malformed('expected client stats');
    if (body.traffic_limit === null || body.traffic_limit === undefined) throw new ProviderError('The account has no traffic limit to count down from');
    const left = gbValue(body.traffic_limit, 'traffic_limit') - gbValue(body.traffic ?? 0, 'traffic');
    return left > 0n ? left : 0n;
  },
  async usage(a, date, policy) {
    const base = baseOf(a.usageUrl ?? a.balanceUrl, OXYLABS_API);
    const { userId, headers } = await oxylabsLogin(base, a, policy);
    const body = await requestJson(withQuery(`${base}/users/${userId}/client-stats`, { type: 'custom', from: date, till: date }), policy, {
      headers,
      label: 'Usage URL',
    });
    if (!isObject(body)) throw malformed('expected client stats');
    return gbValue(body.traffic, 'traffic');
  },
};

/**
 * Bright Data account management API (Bearer API key): `GET /customer/balance` answers the money
 * balance `{ balance }` in USD, read as traffic at the upstream's cost per GB; `GET
 * /zone/bw?zone&from&to` answers the zone's bytes per day (`bw_sum`), the zone being the one the
 * username template names (`-zone-NAME`).
 */
const BRIGHTDATA_API = 'https://api.brightdata.com';
const brightdata: ProviderAdapter = {
  async balance(a, policy) {
    if (a.costPerGbCents <= 0) throw new ProviderError('Set the cost per GB: Bright Data answers a money balance, read as traffic at that price');
    const body = await requestJson(`${baseOf(a.balanceUrl, BRIGHTDATA_API)}/customer/balance`, policy, { headers: bearer(a), label: 'Balance URL' });
    if (!isObject(body)) throw malformed('expected { "balance": USD }');
    const microDollars = decimalValue(body.balance, 'balance');
    // USD millionths -> cents (x100 / 1e6) -> bytes at the price, in one integer division.
    return (microDollars * 100n * BYTES_PER_GB) / (1_000_000n * BigInt(a.costPerGbCents));
  },
  async usage(a, date, policy) {
    const zone = /-zone-([A-Za-z0-9_]+)/.exec(a.usernameTemplate)?.[1];
    if (!zone) throw new ProviderError('The username template names no Bright Data zone (-zone-NAME)');
    const url = withQuery(`${baseOf(a.usageUrl ?? a.balanceUrl, BRIGHTDATA_API)}/zone/bw`, { zone, from: `${date}T00:00:00`, to: `${nextDay(date)}T00:00:00` });
    const body = await requestJson(url, policy, { headers: bearer(a), label: 'Usage URL' });
    if (!isObject(body)) throw malformed('expected zone bandwidth');
    let total = 0n;
    let seen = false;
    for (const customer of Object.values(body)) {
      if (!isObject(customer) || !isObject(customer.data)) continue;
      const z = customer.data[zone];
      if (!isObject(z)) continue;
      if (!Array.isArray(z.bw_sum)) throw malformed('bw_sum is not a list');
      for (const [i, n] of z.bw_sum.entries()) total += bytesValue(n, `bw_sum[${i}]`);
      seen = true;
    }
    if (!seen) throw malformed(`no bandwidth for zone ${zone}`);
    return total;
  },
};

/**
 * Decodo public API (the API key as the `Authorization` header, no scheme, as its API reference
 * shows): `GET /v2/subscriptions` answers each subscription's `traffic_limit` and `traffic` (used)
 * in GB; `POST /api/v2/statistics/traffic` with a day's range answers its `data` rows with
 * `rx_tx_bytes`. These two paths are not confirmed against a published page (docs/reselling.md).
 */
const DECODO_API = 'https://api.decodo.com';
const decodo: ProviderAdapter = {
  async balance(a, policy) {
    const body = await requestJson(`${baseOf(a.balanceUrl, DECODO_API)}/v2/subscriptions`, policy, {
      headers: { authorization: a.apiKey },
      label: 'Balance URL',
    });
    if (!Array.isArray(body)) throw malformed('expected a list of subscriptions');
    let left = 0n;
    for (const [i, s] of body.entries()) {
      if (!isObject(s)) throw malformed(`subscription ${i} is not an object`);
      const rest = gbValue(s.traffic_limit, 'traffic_limit') - gbValue(s.traffic ?? 0, 'traffic');
      if (rest > 0n) left += rest;
    }
    return left;
  },
  async usage(a, date, policy) {
    const body = await requestJson(`${baseOf(a.usageUrl ?? a.balanceUrl, DECODO_API)}/api/v2/statistics/traffic`, policy, {
      method: 'POST',
      headers: { authorization: a.apiKey },
      json: { proxyType: 'residential_proxies', startDate: `${date} 00:00:00`, endDate: `${date} 23:59:59`, granularity: 'day' },
      label: 'Usage URL',
    });
    if (!isObject(body) || !Array.isArray(body.data)) throw malformed('expected { "data": [...] }');
    let total = 0n;
    for (const [i, row] of body.data.entries()) {
      if (!isObject(row)) throw malformed(`data[${i}] is not an object`);
      total += bytesValue(row.rx_tx_bytes, `data[${i}].rx_tx_bytes`);
    }
    return total;
  },
};

/**
 * IPRoyal residential API (Bearer token): `GET /me` answers `available_traffic` in GB and the
 * account's `residential_user_hash`; `GET /residential/data-usage-report` answers a CSV report for
 * that hash and a date range, asked here in whole bytes (`measurement_unit=B`,
 * `rounding_decimal=0`) of one UTC day. An empty range is a CSV with headers only.
 */
const IPROYAL_API = 'https://resi-api.iproyal.com/v1';
async function iproyalMe(base: string, a: ProviderAccount, policy: OutboundPolicy, label: string) {
  const body = await requestJson(`${base}/me`, policy, { headers: bearer(a), label });
  if (!isObject(body)) throw malformed('expected the account');
  return body;
}

/** A header that names the traffic: the page does not publish the report's column names. */
const TRAFFIC_HEADER = /traffic|usage|data|bytes/i;

/** The sum of an IPRoyal usage report's traffic column, bytes; headers only is 0. */
function sumUsageCsv(text: string): bigint {
  let rows: string[][];
  try {
    rows = parseCsv(text, { bom: true, skip_empty_lines: true, trim: true });
  } catch (err) {
    throw malformed(`not CSV (${err instanceof Error ? err.message : String(err)})`);
  }
  const [headers, ...data] = rows;
  if (!headers) throw malformed('the report has no CSV header');
  const seen = JSON.stringify(headers);
  const columns = headers.flatMap((h, i) => (TRAFFIC_HEADER.test(h) ? [i] : []));
  // Two candidates would be a guess between them: the reason names the headers instead.
  if (columns.length !== 1) throw malformed(`${columns.length === 0 ? 'no' : 'more than one'} traffic column in CSV headers ${seen}`);
  const col = columns[0]!;
  let total = 0n;
  for (const [i, row] of data.entries()) {
    const v = row[col] ?? '';
    if (!/^\d{1,19}$/.test(v)) throw malformed(`${headers[col]} in row ${i + 1} is ${JSON.stringify(v)}, not a whole number of bytes (CSV headers ${seen})`);
    total += BigInt(v);
  }
  if (total > MAX_BYTES) throw malformed(`${headers[col]} sums past ${MAX_BYTES} bytes`);
  return total;
}

const iproyal: ProviderAdapter = {
  async balance(a, policy) {
    const me = await iproyalMe(baseOf(a.balanceUrl, IPROYAL_API), a, policy, 'Balance URL');
    return gbValue(me.available_traffic, 'available_traffic');
  },
  async usage(a, date, policy) {
    const base = baseOf(a.usageUrl ?? a.balanceUrl, IPROYAL_API);
    const me = await iproyalMe(base, a, policy, 'Usage URL');
    const hash = me.residential_user_hash;
    if (typeof hash !== 'string' || hash === '') throw malformed('the account has no residential_user_hash');
    const url = withQuery(`${base}/residential/data-usage-report`, {
      hash,
      date_from: date,
      date_to: date,
      measurement_unit: 'B',
      rounding_decimal: '0',
      time_zone: 'UTC',
    });
    return sumUsageCsv(await requestText(url, policy, { headers: bearer(a), accept: 'text/csv', label: 'Usage URL' }));
  },
};

/**
 * SOAX partner API (the key in the `api-key` header, never in the URL, where it would be logged):
 * `GET /v1/packages/{package}` answers the package's `traffic_left` in bytes;
 * `GET /v1/packages/{package}/traffic?date_from&date_to` its `traffic` in bytes for those days.
 * The package is the one the username template names (`package-ID`). SOAX's public API
 * description does not list these two paths (docs/reselling.md).
 */
const SOAX_API = 'https://partner.api.soax.com';
function soaxPackage(a: ProviderAccount): string {
  const id = /package-(\d+)/.exec(a.usernameTemplate)?.[1];
  if (!id) throw new ProviderError('The username template names no SOAX package (package-ID)');
  return id;
}
const soaxKey = (a: ProviderAccount): Record<string, string> => (a.apiKey ? { 'api-key': a.apiKey } : {});
const soax: ProviderAdapter = {
  async balance(a, policy) {
    const body = await requestJson(`${baseOf(a.balanceUrl, SOAX_API)}/v1/packages/${soaxPackage(a)}`, policy, { headers: soaxKey(a), label: 'Balance URL' });
    if (!isObject(body)) throw malformed('expected the package');
    return bytesValue(body.traffic_left, 'traffic_left');
  },
  async usage(a, date, policy) {
    const url = withQuery(`${baseOf(a.usageUrl ?? a.balanceUrl, SOAX_API)}/v1/packages/${soaxPackage(a)}/traffic`, { date_from: date, date_to: date });
    const body = await requestJson(url, policy, { headers: soaxKey(a), label: 'Usage URL' });
    if (!isObject(body)) throw malformed('expected the package traffic');
    return bytesValue(body.traffic, 'traffic');
  },
};

export const PROVIDER_ADAPTERS: Record<UpstreamProvider, ProviderAdapter> = { custom, oxylabs, brightdata, decodo, iproyal, soax };

/** Traffic left in the account, bytes; a ProviderError with the reason when it cannot be read. */
export const readProviderBalance = (a: ProviderAccount, policy: OutboundPolicy) => PROVIDER_ADAPTERS[a.provider].balance(a, policy);

/** The provider's count of one UTC day, bytes; a ProviderError with the reason when it cannot be read. */
export const readProviderUsage = (a: ProviderAccount, date: string, policy: OutboundPolicy) => PROVIDER_ADAPTERS[a.provider].usage(a, date, policy);
