/**
 * The connection rows of a gateway's report, checked against core's own schemas at a fraction of
 * their cost. A report carries up to 200,000 rows (thousands a second on a busy fleet), and
 * checking each with zod's tuple took a third of the server's CPU a stored record
 * (`pnpm bench:connections`). The same schemas, turned into JSON Schema by zod (`z.toJSONSchema`),
 * are compiled once by Ajv into one function; a list it accepts is what zod accepts, unchanged
 * (these schemas have no defaults or transforms: the compile refuses any that has), and a list it
 * refuses is parsed by zod, so the error is zod's, word for word. `bulk-rows.test.ts` holds the
 * two to the same verdicts.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { gatewayLogRow, gatewayLogSession, gatewayReportInput, MAX_REPORT_ROWS } from '@proxyhub/core';
import { z } from 'zod';

// Lengths in UTF-16 code units, as zod counts them (Ajv counts code points by default: the option
// is marked deprecated but kept, and the test holds it); formats are checked by the patterns zod
// writes beside them. No logger: its one message would be that deprecation, at every start.
const ajv = new Ajv2020({ unicode: false, validateFormats: false, strict: false, allErrors: false, logger: false });

/** Whether the schema's output can differ from its input (a default, a transform, a pipe). */
function changesValues(schema: z.ZodType): boolean {
  const json = JSON.stringify(z.toJSONSchema(schema, { io: 'input' }));
  const out = JSON.stringify(z.toJSONSchema(schema, { io: 'output' }));
  return json !== out;
}

/**
 * `z.array(item).max(max)`, checked in bulk: the same input type, output and error messages.
 * Throws at start when `item` changes values (the compiled check could not reproduce that).
 */
export function bulkArray<T extends z.ZodType>(item: T, max: number) {
  const exact = z.array(item).max(max);
  if (changesValues(exact)) throw new Error('bulkArray: the item schema changes values (a default or a transform); use z.array');
  const fast = ajv.compile(z.toJSONSchema(exact, { io: 'input', unrepresentable: 'throw' }));
  return z.custom<z.input<typeof exact>>().transform((value, ctx): z.output<typeof exact> => {
    if (fast(value)) return value as z.output<typeof exact>;
    const parsed = exact.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  });
}

/** gateway.report's input: core's schema, with its compact rows and their sessions checked in bulk. */
export const gatewayReportBulkInput = gatewayReportInput.extend({
  logSessions: bulkArray(gatewayLogSession, MAX_REPORT_ROWS).optional(),
  logRows: bulkArray(gatewayLogRow, MAX_REPORT_ROWS).optional(),
});
