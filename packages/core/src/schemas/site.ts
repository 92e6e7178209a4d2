import { z } from 'zod';

/** GET /api/pages/:slug: one of the operator's public pages (an unknown or malformed slug is a 404). */
export const sitePageInput = z.object({ slug: z.string({ error: 'Page must be named' }).max(1000, 'Page not found') });
export type SitePageInput = z.infer<typeof sitePageInput>;
