/** Prices the operator sets: a base rate, a minimum order, volume tiers; integer cents throughout. */
import { MIN_ORDER_CENTS, PRICE_PER_GB_CENTS } from './constants';

export interface PriceTier {
  minGb: number;
  pricePerGbCents: number;
}

export interface Pricing {
  pricePerGbCents: number;
  minOrderCents: number;
  tiers: PriceTier[];
}

/** The spec's prices: $0.90/GB, $10 minimum, no tiers. */
export const DEFAULT_PRICING: Pricing = { pricePerGbCents: PRICE_PER_GB_CENTS, minOrderCents: MIN_ORDER_CENTS, tiers: [] };

/** The smallest whole-GB order at the base rate whose price reaches the minimum: 12 at the defaults. */
export const minOrderGb = (p: Pricing): number => Math.ceil(p.minOrderCents / p.pricePerGbCents);

/**
 * What the smallest order costs: its GB and what is charged for them (12 GB for $10.80 at the
 * defaults, not the $10 minimum: 12 x $0.90 is above it). Every text that states the smallest
 * order states this pair, so what is shown is what checkout charges.
 */
export function smallestOrder(p: Pricing, userRateCents: number | null = null): { gb: number; totalCents: number } {
  const gb = minOrderGb(p);
  return { gb, totalCents: orderTotalCents(p, gb, userRateCents) };
}

/** "12 GB for $10.80": the smallest order as every page words it. */
export function smallestOrderText(p: Pricing, userRateCents: number | null = null): string {
  const o = smallestOrder(p, userRateCents);
  return `${o.gb} GB for $${(o.totalCents / 100).toFixed(2)}`;
}

/** "$10", "$10.50": whole dollars without cents, as the spec's message writes them. */
const dollars = (cents: number) => (cents % 100 === 0 ? String(cents / 100) : (cents / 100).toFixed(2));

/** "Minimum order is 12GB ($10)" at the defaults, word for word. */
export const minOrderMessage = (p: Pricing): string => `Minimum order is ${minOrderGb(p)}GB ($${dollars(p.minOrderCents)})`;

/** The rate for an order of `gbAmount` GB: its tier's (or the base), or the user's own rate when lower. */
export function ratePerGbCents(p: Pricing, gbAmount: number, userRateCents: number | null = null): number {
  let rate = p.pricePerGbCents;
  for (const t of p.tiers) if (gbAmount >= t.minGb) rate = Math.min(rate, t.pricePerGbCents);
  return userRateCents !== null ? Math.min(rate, userRateCents) : rate;
}

/** An order's total in cents: max(GB x rate, minimum). */
export function orderTotalCents(p: Pricing, gbAmount: number, userRateCents: number | null = null): number {
  return Math.max(gbAmount * ratePerGbCents(p, gbAmount, userRateCents), p.minOrderCents);
}

/**
 * "Pool A costs $3.50 per GB, more than the $0.90 per GB it is sold for": a pool whose cost per GB
 * is above the base price or a tier's (each GB through it, at that price, loses money); null when
 * every price covers it. The lowest such price is named.
 */
export function costAboveSale(name: string, costPerGbCents: number, p: Pricing): string | null {
  const prices = [{ cents: p.pricePerGbCents, from: null as number | null }, ...p.tiers.map((t) => ({ cents: t.pricePerGbCents, from: t.minGb }))];
  const below = prices.filter((x) => x.cents < costPerGbCents).sort((a, b) => a.cents - b.cents)[0];
  if (!below) return null;
  const usd = (c: number) => `$${(c / 100).toFixed(2)}`;
  const sold = below.from === null ? `the ${usd(below.cents)} per GB it is sold for` : `the ${usd(below.cents)} per GB it is sold for from ${below.from} GB`;
  return `${name} costs ${usd(costPerGbCents)} per GB, more than ${sold}: every GB through it loses money`;
}
