import { z } from 'zod';

/** What the `proxyLines.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const proxyLinesListOutput = z.object({ lines: z.array(z.string()), endpoint: z.object({ host: z.string(), port: z.number() }) });
