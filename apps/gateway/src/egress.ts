/**
 * Egress: where a tunnel's target connection comes from. Direct by default, or through an upstream
 * proxy (http:// with CONNECT, or socks5://) whose username and password are templates carrying the
 * location and the session (core's upstream-template grammar). The dialling and the private-address
 * rule live in core's node part, shared with the server's upstream test. Direct egress refuses
 * private, loopback, link-local and metadata addresses after DNS resolution and connects to the
 * very address it checked; so does the connection to an upstream itself.
 */
import { isIP } from 'node:net';
import { renderUpstreamCredentials, upstreamCarries, upstreamNeedsNames, type PlaceNames, type ProxyLocation } from '@proxyhub/core';
import { bareHost, connectTo, dialUpstream, EgressError, isPrivateAddress, resolveChecked } from '@proxyhub/core/node';
import type { Logger } from './log';
import { sharedReadOption, type SharedReadSocket } from './shared-reads';
import type { Upstream, UpstreamPool } from './upstream-pool';

export { embeddedIPv4, EgressError, isPrivateAddress, type EgressErrorKind } from '@proxyhub/core/node';

export interface EgressRequest {
  host: string;
  port: number;
  location: ProxyLocation;
  /** Upstream session id, stable for the sticky session's duration (the default upstream's {session}). */
  session: string;
  /** The client's 8-character session token, as its username carries it (a pool's {session}). */
  token?: string;
  /** The line's upstream session id ({sid}): 8 characters of [a-z0-9], the same on every gateway for the period; '' when rotating. */
  sid: string;
  /** 0: a rotating line (a new exit per connection, no session sent). */
  durationMinutes: number;
  /** A hard sticky line: only its one pool (or the default upstream) carries it, never a second. */
  hard?: boolean | undefined;
  /** The sticky session: the pool upstream it keeps for its duration (set once one carried it). */
  sticky?: { upstreamId: string | null };
  /** A quality probe's pool: that one only, down or not, never another or the default upstream; null: the default route. */
  pin?: string | null | undefined;
}

export interface EgressOptions {
  allowPrivate: boolean;
  upstreamUrl?: string | undefined;
  /** Upstream pools from the admin panel; without any, the default upstream or direct egress. */
  pool?: UpstreamPool | undefined;
  connectTimeoutMs: number;
  /** Where an upstream's own failure is told (its address and error: the operator's to fix, never the customer's to see). */
  logger?: Pick<Logger, 'warn'> | undefined;
}

export type Egress = (req: EgressRequest) => Promise<TargetSocket>;

/**
 * `upstreamId`: the pool upstream that carried it ('' for the default upstream or direct egress).
 * `sharedReads`: it reads into the shared buffer (shared-reads.ts), not through 'data' events.
 * `exitIp`: the local address a direct connection left from, for the connection log (an abuse
 * report names it); unknown through an upstream (its exit is the provider's).
 */
export type TargetSocket = SharedReadSocket & { sharedReads?: boolean; upstreamId?: string; exitIp?: string };

/**
 * English place names for `{state|name}`: the dataset is loaded on the first tunnel whose upstream
 * spells a place by name (about 110 MB and 0.65 s, once; see core's places), never by a gateway
 * whose upstreams take codes.
 */
let placeNames: Promise<PlaceNames> | undefined;
function namesFor(up: Upstream): Promise<PlaceNames> | undefined {
  if (!upstreamNeedsNames(up)) return undefined;
  placeNames ??= import('@proxyhub/core/places').then((m) => m.placeNames);
  return placeNames;
}

/** The username and password this upstream gets for this tunnel; `session` is what `{session}` stands for. */
export async function upstreamCredentials(up: Upstream, req: EgressRequest, session = up.id ? (req.token ?? req.session) : req.session) {
  const names = await namesFor(up);
  return renderUpstreamCredentials(up, { location: req.location, session, sid: req.sid, durationMinutes: req.durationMinutes, hard: req.hard }, names);
}

/** The username template filled for a tunnel (names as codes unless the dataset is loaded). */
export function fillTemplate(template: string, req: EgressRequest, session = req.session): string {
  return renderUpstreamCredentials(
    { usernameTemplate: template, password: '' },
    { location: req.location, session, sid: req.sid, durationMinutes: req.durationMinutes, hard: req.hard },
  ).username;
}

/** The default upstream (GATEWAY_UPSTREAM_URL) as a pool entry without an id. */
export function upstreamFromUrl(url: string): Upstream {
  const u = new URL(url);
  const socks = u.protocol.startsWith('socks');
  return {
    id: '',
    protocol: socks ? 'socks5' : 'http',
    host: bareHost(u.hostname),
    port: Number(u.port || (socks ? 1080 : 80)),
    usernameTemplate: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    countries: null,
    weight: 1,
  };
}

async function viaUpstream(up: Upstream, req: EgressRequest, opts: EgressOptions): Promise<TargetSocket> {
  const credentials = await upstreamCredentials(up, req);
  const socket: TargetSocket = await dialUpstream(up, credentials, req, { timeoutMs: opts.connectTimeoutMs, allowPrivate: opts.allowPrivate });
  socket.upstreamId = up.id;
  return socket;
}

/** A probe of one pool: that pool's answer, or its failure, as the measure of that pool alone. */
async function viaPinned(req: EgressRequest, id: string, route: Upstream[] | null, opts: EgressOptions): Promise<TargetSocket> {
  const up = route?.find((u) => u.id === id);
  if (!up) throw new EgressError('unreachable', `No upstream serves country ${req.location.country}`);
  try {
    const socket = await viaUpstream(up, req, opts);
    opts.pool?.succeeded(up.id);
    return socket;
  } catch (err) {
    if (err instanceof EgressError && err.upstreamFailed) {
      opts.pool?.failed(up.id);
      throw noUpstreamAnswered(req.location.country, err);
    }
    throw err;
  }
}

/**
 * Every upstream tried failed itself (no connection, no answer in time): the exit is unavailable,
 * not the target (the log's outcome is upstream_failed), and the customer is not told our
 * provider's address, which the dial's own message names.
 */
function noUpstreamAnswered(country: string, last: EgressError | null): EgressError {
  const why = last?.kind === 'timeout' ? 'no answer in time' : 'the connection failed';
  return new EgressError('upstream', `No exit could be reached for ${country || 'this line'} (${why}), try again`, true);
}

/**
 * Where each tunnel leaves: the enabled pools serving its country (in upstream-pool.ts's order: a
 * sticky line's by its sid, a rotating line's by weight), then the default upstream; the next one is tried when one cannot be reached or does
 * not answer in time, before the client sees an error. With no pool at all: the default upstream,
 * else direct. With pools but none serving the country and no default: refused; when the only
 * pools serving it are dry (their provider accounts are out of traffic): refused as having no exit.
 */
export function createEgress(opts: EgressOptions): Egress {
  const fallback = opts.upstreamUrl ? upstreamFromUrl(opts.upstreamUrl) : null;
  const direct: Egress = async (req) => {
    const address = await resolveChecked(req.host, opts.allowPrivate);
    const socket: TargetSocket = await connectTo(address, req.port, opts.connectTimeoutMs, false, { onread: sharedReadOption });
    socket.sharedReads = true;
    socket.exitIp = socket.localAddress ?? '';
    return socket;
  };
  return async (req) => {
    const pool = opts.pool;
    const route = pool?.route(req.location, req.sid, Date.now(), req.hard) ?? null;
    if (!route && !fallback && !req.pin) return direct(req);
    // The upstream resolves names at its exit; literal private addresses are still ours to refuse.
    const host = bareHost(req.host);
    if (!opts.allowPrivate && isIP(host) && isPrivateAddress(host)) throw new EgressError('forbidden', `Destination ${req.host} is a private address`);
    if (req.pin) return viaPinned(req, req.pin, route, opts);
    const candidates = route ? [...route] : [];
    // A hard line keeps its one exit or fails; the default upstream carries only what it can.
    if (fallback && !(req.hard && candidates.length) && upstreamCarries(fallback, req)) candidates.push(fallback);
    // The pools changed since the login admitted the line: none left carries what it asks for.
    const notCarried = candidates.length ? null : pool?.notCarried(req.location, req.hard === true, fallback);
    if (notCarried) throw new EgressError('unreachable', `Targeting not offered: ${notCarried}`);
    if (!candidates.length && pool?.onlyDryServe(req.location, req.hard)) throw new EgressError('no_exit', `No exits available for ${req.location.country}`);
    if (!candidates.length) throw new EgressError('unreachable', `No upstream serves country ${req.location.country}`);
    let last: EgressError | null = null;
    for (const up of candidates) {
      try {
        const socket = await viaUpstream(up, req, opts);
        if (up.id) pool?.succeeded(up.id);
        if (req.sticky) req.sticky.upstreamId = up.id || null;
        return socket;
      } catch (err) {
        if (!(err instanceof EgressError) || !err.upstreamFailed) throw err;
        pool?.failed(up.id);
        opts.logger?.warn({ upstreamId: up.id, kind: err.kind, reason: err.message }, 'upstream failed');
        last = err;
      }
    }
    throw noUpstreamAnswered(req.location.country, last);
  };
}
