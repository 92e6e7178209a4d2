/**
 * Catches an output schema that strips a field: zod drops keys an object schema does not declare,
 * so a service field missing from a procedure's `.output(...)` silently never reaches the caller.
 * While watching, every procedure's output step also compares the service's own value with what
 * the schema let through and records each key that went missing (as `path: .a.b[].c`).
 */
import type { AnyTRPCRouter } from '@trpc/server';

type Middleware = ((opts: { next: (o?: unknown) => Promise<Step> } & Record<string, unknown>) => Promise<Step>) & { _type?: string };
type Step = { ok: boolean; data?: unknown };
type ProcedureDef = { type: string; output?: unknown; middlewares: Middleware[] };

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v) as object | null);

/** The keys of `raw` (the service's value) that are absent from `parsed` (what the schema answered), deeply. */
export function strippedKeys(raw: unknown, parsed: unknown, at = ''): string[] {
  if (Array.isArray(raw) && Array.isArray(parsed)) return [...new Set(raw.flatMap((r, i) => strippedKeys(r, parsed[i], `${at}[]`)))];
  if (!isPlainObject(raw) || !isPlainObject(parsed)) return [];
  return Object.entries(raw).flatMap(([k, v]) => (v === undefined ? [] : k in parsed ? strippedKeys(v, parsed[k], `${at}.${k}`) : [`${at}.${k}`]));
}

export interface OutputWatch {
  /** Procedure path to the keys its output schema stripped. */
  stripped: Map<string, Set<string>>;
  /** Procedures whose output step ran on a successful answer. */
  checked: Set<string>;
  /** Puts the procedures' own output steps back. */
  restore(): void;
}

/**
 * Wraps the output step of every procedure of `router`. The router is shared by the test files a
 * worker runs, so `restore()` must run (afterAll) and the wrapper changes no answer.
 */
export function watchOutputs(router: AnyTRPCRouter): OutputWatch {
  const stripped = new Map<string, Set<string>>();
  const checked = new Set<string>();
  const undo: (() => void)[] = [];
  for (const [path, procedure] of Object.entries(router._def.procedures as Record<string, { _def: ProcedureDef }>)) {
    const middlewares = procedure._def.middlewares;
    const index = middlewares.findIndex((m) => m._type === 'output');
    if (index < 0) continue;
    const original = middlewares[index]!;
    const watching: Middleware = async (opts) => {
      let raw: Step | undefined;
      const result = await original({
        ...opts,
        next: async (o?: unknown) => (raw = await opts.next(o)),
      });
      if (result.ok && raw?.ok) {
        checked.add(path);
        for (const key of strippedKeys(raw.data, result.data)) (stripped.get(path) ?? stripped.set(path, new Set()).get(path)!).add(key);
      }
      return result;
    };
    watching._type = 'output';
    middlewares[index] = watching;
    undo.push(() => (middlewares[index] = original));
  }
  return { stripped, checked, restore: () => undo.forEach((u) => u()) };
}
