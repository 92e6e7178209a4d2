/**
 * A bound on JSON nesting, checked on the raw text before anything parses or walks it: JSON.parse
 * copes with deep input, but every recursive walk after it (signature key sorting, superjson,
 * validation) would overflow the stack. No request of ours nests more than a few levels.
 */
import type { FastifyInstance } from 'fastify';

export const MAX_JSON_DEPTH = 64;

export const TOO_DEEP_MESSAGE = `JSON is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`;

/** True when arrays and objects in `text` nest deeper than `max`. An iterative scan; brackets inside strings do not count. */
export function nestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

function tooDeepError(): Error & { statusCode: number } {
  return Object.assign(new Error(TOO_DEEP_MESSAGE), { statusCode: 400 });
}

/**
 * Every JSON body is depth-checked before it is parsed (Fastify's own parser does the rest,
 * prototype poisoning refused as before). The tRPC plugin takes JSON bodies as text in its scope
 * and GET calls carry JSON in `?input=`: a hook checks those before any handler runs.
 */
export function boundJsonNesting(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (nestsDeeperThan(body as string)) {
      done(tooDeepError(), undefined);
      return;
    }
    void parseJson(req, body as string, done);
  });
  app.addHook('preValidation', async (req) => {
    if (typeof req.body === 'string' && nestsDeeperThan(req.body)) throw tooDeepError();
    const input = (req.query as Record<string, unknown> | undefined)?.input;
    for (const v of [input].flat()) if (typeof v === 'string' && nestsDeeperThan(v)) throw tooDeepError();
  });
}
