import { z } from 'zod';
import { GENERATOR_DURATION_OPTIONS, MAX_PROXY_COUNT } from '../constants';
import { LOCATION_CODE_RE } from '../proxy-username';

const code = z.string().regex(LOCATION_CODE_RE, 'Invalid location code');

export const generateProxiesForm = z.object({
  country: code,
  state: code.optional(),
  city: code.optional(),
  durationMinutes: z.number().refine((v) => (GENERATOR_DURATION_OPTIONS as readonly number[]).includes(v), 'Choose one of the listed durations'),
  count: z
    .number({ error: 'Count is required' })
    .int('Count must be a whole number')
    .min(1, 'Count must be at least 1')
    .max(MAX_PROXY_COUNT, 'Count must be at most 10000'),
});
