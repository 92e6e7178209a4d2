/**
 * GET /api/proxy-list: the lines the Proxies page's generator makes, for programs. The same core
 * functions build them (username grammar, formats, limits), for one of the caller's enabled proxy
 * accounts; the location must be one the catalogue offers, as the page's lists are.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { SecretBox } from '@proxyhub/auth';
import {
  DEFAULT_DURATION_MINUTES,
  DEFAULT_PROXY_COUNT,
  DEFAULT_PROXY_FORMAT,
  DomainError,
  formatProxy,
  generateProxies,
  LOCAL_GATEWAY_HOST,
  type ProxyEndpoint,
  type ProxyListAnswer,
  type proxyListInput,
} from '@proxyhub/core';
import { proxyAccounts, type DbOrTx } from '@proxyhub/db';
import type { z } from 'zod';
import { offeredCountries } from './catalogue';
import { listCities, listStates } from './locations';

export const MAIN_ACCOUNT = 'main';

/** The host a request named (no port), for the endpoint when no public gateway host is configured: the web does the same with its page's host. */
export function requestHostname(hostHeader: string | undefined): string | null {
  if (!hostHeader) return null;
  try {
    const host = new URL(`http://${hostHeader}`).hostname;
    return host.replace(/^\[(.*)\]$/, '$1') || null;
  } catch {
    return null;
  }
}

async function checkLocation(db: DbOrTx, egress: { defaultUpstream?: boolean | undefined }, input: z.output<typeof proxyListInput>) {
  if (!(await offeredCountries(db, egress)).has(input.country)) throw new DomainError('BAD_REQUEST', `Country: ${input.country} is not offered`);
  if (input.city && !input.state) throw new DomainError('BAD_REQUEST', 'City: give the state too');
  if (input.state && !listStates(input.country)?.some((s) => s.code === input.state)) {
    throw new DomainError('BAD_REQUEST', `State: ${input.state} is not a state of ${input.country}`);
  }
  if (input.city && !listCities(input.country, input.state!)?.some((c) => c.code === input.city)) {
    throw new DomainError('BAD_REQUEST', `City: ${input.city} is not a city of ${input.country}-${input.state}`);
  }
}

export async function proxyList(
  db: DbOrTx,
  secrets: SecretBox,
  setup: { endpoint: { publicHost: string | null; publicPort: number; requestHost: string | null }; egress: { defaultUpstream?: boolean | undefined } },
  userId: string,
  input: z.output<typeof proxyListInput>,
): Promise<ProxyListAnswer> {
  await checkLocation(db, setup.egress, input);
  const account = input.account ?? MAIN_ACCOUNT;
  const [row] = await db
    .select()
    .from(proxyAccounts)
    .where(
      and(
        eq(proxyAccounts.userId, userId),
        account === MAIN_ACCOUNT ? eq(proxyAccounts.kind, 'main') : eq(proxyAccounts.proxyUserId, account),
        isNull(proxyAccounts.disabledAt),
      ),
    )
    .limit(1);
  if (!row) throw new DomainError('BAD_REQUEST', `Account: no enabled proxy account ${account}`);
  const endpoint: ProxyEndpoint = { host: setup.endpoint.publicHost ?? setup.endpoint.requestHost ?? LOCAL_GATEWAY_HOST, port: setup.endpoint.publicPort };
  const proxies = generateProxies({
    proxyUserId: row.proxyUserId,
    proxyPassword: secrets.decrypt(row.proxyPasswordEnc),
    location: { country: input.country, state: input.state, city: input.city },
    durationMinutes: input.duration ?? DEFAULT_DURATION_MINUTES,
    count: input.count ?? DEFAULT_PROXY_COUNT,
    endpoint,
  });
  const format = input.format ?? DEFAULT_PROXY_FORMAT;
  return { lines: proxies.map((p) => formatProxy(p, format, endpoint)), endpoint };
}
