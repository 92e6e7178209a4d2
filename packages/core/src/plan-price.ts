/**
 * A plan's price per GB, apart from the plan schemas: the public pricing page shows it, and a
 * module without zod keeps zod out of that page's download.
 */
/** What a plan's GB cost, in cents per GB (rounded to the cent), for comparing it with pay-as-you-go. */
export const planPricePerGbCents = (p: { gbPerPeriod: number; priceCents: number }): number => Math.round(p.priceCents / p.gbPerPeriod);
