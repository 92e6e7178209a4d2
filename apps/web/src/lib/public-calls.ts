/**
 * The calls the signed-out pages make as they open, as plain fetches: the tRPC client and superjson
 * would otherwise be part of every signed-out page's first download.
 */
import { useEffect, useState } from 'react';
import { DEFAULT_PRICING, type Plan, type Pricing, type QualityBoard, type Seller } from '@proxyhub/core';

/** An error the server answered with (its `error` field, the spec's wording). */
/** The server's refusal: its English `error` and its `code` (which the page shows translated). */
export class ServerAnswer extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** tRPC's GET for a query without input; superjson wraps a plain object's JSON as `{ json }`. */
export async function signInOptions(): Promise<{ google: boolean }> {
  const r = await fetch('/trpc/auth.signInOptions', { credentials: 'include' });
  if (!r.ok) throw new Error(`signInOptions: ${r.status}`);
  const body = (await r.json()) as { result?: { data?: { json?: { google?: unknown } } } };
  return { google: body.result?.data?.json?.google === true };
}

/** GET /auth/verify-email: the same procedure as over tRPC; it validates the token with the core schema. */
export async function verifyEmail(token: string): Promise<{ alreadyVerified: boolean; message: string }> {
  const r = await fetch(`/auth/verify-email?${new URLSearchParams({ token })}`, { credentials: 'include' });
  const body = (await r.json().catch(() => null)) as { alreadyVerified?: boolean; message?: string; error?: string; code?: string } | null;
  if (!r.ok || !body) throw body?.error !== undefined ? new ServerAnswer(body.error, body.code) : new Error(`verify-email: ${r.status}`);
  return { alreadyVerified: body.alreadyVerified === true, message: body.message ?? '' };
}

/** A public GET of one of the server's REST paths: its JSON, or its `error` as a ServerAnswer. */
async function getJson<T>(path: string): Promise<T> {
  const r = await fetch(path, { credentials: 'include', headers: { accept: 'application/json' } });
  const body = (await r.json().catch(() => null)) as (T & { error?: string; code?: string }) | null;
  if (!r.ok || !body) throw body?.error !== undefined ? new ServerAnswer(body.error, body.code) : new Error(`${path}: ${r.status}`);
  return body;
}

export interface PublicPricing {
  pricePerGbCents: number;
  minOrderCents: number;
  minOrderGb: number;
  /** What the smallest order is charged (12 GB: $10.80 at the defaults). */
  minOrderTotalCents: number;
  tiers: Array<{ minGb: number; pricePerGbCents: number }>;
}
export const publicPricing = () => getJson<PublicPricing>('/api/pricing');
export const publicPlans = async () => (await getJson<{ plans: Plan[] }>('/api/plans')).plans;

export interface OfferedCountry {
  code: string;
  name: string;
  states: number;
  cities: number;
}
export const offeredCountries = async () => (await getJson<{ countries: OfferedCountry[] }>('/api/locations/countries')).countries;

export interface ServiceStatus {
  status: 'operational' | 'degraded' | 'down';
  gatewaysUp: number;
  gatewaysTotal: number;
  uptime30d: number | null;
  days: Array<{ date: string; uptime: number | null }>;
}
export const serviceStatus = () => getJson<ServiceStatus>('/api/status');

/** GET /api/status/quality: what the prober measured per country. */
export const qualityBoard = () => getJson<QualityBoard>('/api/status/quality');

export const sitePage = (slug: string) => getJson<{ title: string; html: string }>(`/api/pages/${encodeURIComponent(slug)}`);

/** The reset page's check as it opens: whether its link still works (the token is not spent). */
export async function resetLinkValid(token: string): Promise<boolean> {
  return (await getJson<{ valid: boolean }>(`/auth/reset-password/check?${new URLSearchParams({ token })}`)).valid;
}

/**
 * A public read shared by the whole page: made once per page load, `initial` until it has answered;
 * a failed read is retried on the next mount, and `reset` makes the next mount read again.
 */
function sharedRead<T>(load: () => Promise<T>, initial: T) {
  let once: Promise<T> | null = null;
  function useShared(): T {
    const [value, setValue] = useState<T>(initial);
    useEffect(() => {
      let live = true;
      once ??= load();
      once.then(
        (v) => {
          if (live) setValue(v);
        },
        () => {
          once = null;
        },
      );
      return () => {
        live = false;
      };
    }, []);
    return value;
  }
  return { useShared, reset: () => (once = null) };
}

const pricingRead = sharedRead<Pricing>(publicPricing, DEFAULT_PRICING);
/** The price list for the signed-out pages; the spec's defaults until it has answered (as the Top Up page does). */
export const usePublicPricing = pricingRead.useShared;

const sellerRead = sharedRead<Seller | null>(() => getJson<Seller>('/api/seller'), null);
/** The seller (company, address, support email, the legal pages' dates) for the footer and every "contact support"; null until loaded. */
export const useSeller = sellerRead.useShared;
/** After the Site tab saves: the next mount reads the new settings. */
export function refreshSeller() {
  sellerRead.reset();
}
