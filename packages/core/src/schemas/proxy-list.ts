import { z } from 'zod';
import { GENERATOR_DURATION_OPTIONS, MAX_PROXY_COUNT } from '../constants';
import { PROXY_FORMATS, type ProxyEndpoint } from '../proxy-list';
import { LOCATION_CODE_RE } from '../proxy-username';

const locationCode = (field: string, example: string) =>
  z
    .string({ error: `${field} must be a location code such as ${example}` })
    .trim()
    .toUpperCase()
    .regex(LOCATION_CODE_RE, `${field} must be a location code such as ${example}`);

const DURATIONS_TEXT = GENERATOR_DURATION_OPTIONS.join(', ');

/**
 * GET /api/proxy-list: the generator's choices as a query string. Absent duration, count, format and
 * account are the generator's defaults (60 minutes, 10 lines, host:port:user:pass, the main account).
 */
export const proxyListInput = z.object({
  country: locationCode('Country', 'US'),
  state: locationCode('State', 'CA').optional(),
  city: locationCode('City', 'LOSANGELES').optional(),
  duration: z
    .number({ error: `Duration must be one of ${DURATIONS_TEXT} (minutes; 0 is a rotating line)` })
    .refine((v) => (GENERATOR_DURATION_OPTIONS as readonly number[]).includes(v), `Duration must be one of ${DURATIONS_TEXT} (minutes; 0 is a rotating line)`)
    .optional(),
  count: z
    .number({ error: `Count must be a whole number from 1 to ${MAX_PROXY_COUNT}` })
    .int(`Count must be a whole number from 1 to ${MAX_PROXY_COUNT}`)
    .min(1, `Count must be a whole number from 1 to ${MAX_PROXY_COUNT}`)
    .max(MAX_PROXY_COUNT, `Count must be a whole number from 1 to ${MAX_PROXY_COUNT}`)
    .optional(),
  format: z
    .enum(
      PROXY_FORMATS.map((f) => f.id),
      { error: `Format must be one of ${PROXY_FORMATS.map((f) => f.id).join(', ')}` },
    )
    .optional(),
  /** A proxy account's proxy user id, or `main` (the default). */
  account: z
    .string({ error: 'Account must be a proxy user id or main' })
    .trim()
    .min(1, 'Account must be a proxy user id or main')
    .max(64, 'Account must be a proxy user id or main')
    .optional(),
});
export type ProxyListInput = z.input<typeof proxyListInput>;

/** What GET /api/proxy-list answers as JSON: the lines as the chosen format prints them, and the endpoint they name. */
export interface ProxyListAnswer {
  lines: string[];
  endpoint: ProxyEndpoint;
}
