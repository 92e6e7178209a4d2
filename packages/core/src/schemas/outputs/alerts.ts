import { z } from 'zod';

/** What the `alerts.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const alertsGetOutput = z.object({ lowBalanceGB: z.number().nullable(), usageAlertPercents: z.array(z.number().int()) });

export const alertsSetOutput = alertsGetOutput;
