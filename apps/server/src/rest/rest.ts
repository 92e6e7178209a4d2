/**
 * REST shims: the spec's paths over the same procedures as tRPC. A path is declared with the
 * procedure's own input schema and where it carries it (JSON body, query string or path
 * parameters), a one-line summary, and the schema of its JSON answer (the procedure's output
 * schema, reshaped as the shim reshapes it): the OpenAPI document is generated from these, and the
 * compiler holds each shim's answer to its declared schema. The shim does not validate: the procedure does,
 * after its guards, so an anonymous call with a bad body is a 401 as over tRPC, not a 400.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ApiDeps } from '@proxyhub/api';
import { errorAnswer, hasErrorAnswer } from '../error-answer';
import { callerFor, type Caller } from '../request-adapter';

export type { Caller };

/** A shim's answer when it needs a status other than 200. */
export class RestResponse {
  constructor(
    readonly status: number,
    readonly body: unknown,
    /** Set for a text answer (CSV, a printable page): the body is sent as it is. */
    readonly contentType?: string,
  ) {}
}

export type InputSource = 'body' | 'query' | 'params';

export interface RestRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  /** The procedure's input schema and where the request carries it; null when the path takes none. */
  input: { from: InputSource; schema: z.ZodType } | null;
  /** With a JSON body or a query: the URL's parameters (`:id`) that are fields of the same input. */
  pathParams: string[];
  /** Fields a path's error answers carry besides success and error (the spec's login answer has requiresVerification). */
  errorFields: Record<string, unknown>;
  /** One line for the API reference. */
  summary?: string;
  /** The JSON answer's schema; the document describes bigints as integers and dates as ISO strings, as they are sent. */
  response?: z.ZodType;
  /** The status of a success: 201 for a path that creates. */
  status: 200 | 201;
  /** A text answer the path gives instead (CSV with `format=csv`, a printable page). */
  text?: TextAnswer;
  answer(caller: Caller, input: unknown, headers: FastifyRequest['headers']): Promise<unknown>;
}

/** A text answer: its media type and when it is sent. */
export interface TextAnswer {
  type: string;
  description: string;
}

interface RouteSpec<S extends z.ZodType, R extends z.ZodType> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  /** The input schema, under where the request carries the input (one of the three). */
  body?: S;
  query?: S;
  params?: S;
  /** With `body` or `query`: the URL's parameters are fields of its schema too (the URL wins). */
  pathParams?: true;
  errorFields?: Record<string, unknown>;
  /** One line for the API reference: what the path does. */
  summary?: string;
  /** The JSON answer's schema. Every documented path has one (the API docs test names any without). */
  response?: R;
  status?: 201;
  text?: TextAnswer;
}

const SOURCES: readonly InputSource[] = ['body', 'query', 'params'];

/**
 * Declares a path. The handler gets the input typed as the schema's input: the procedure it is
 * passed to validates it with that same schema, so a caller-supplied value is only ever claimed
 * to have that shape until then.
 */
export function restRoute<S extends z.ZodType, R extends z.ZodType = z.ZodUnknown>(
  spec: RouteSpec<S, R>,
  /**
   * `headers` for the few answers that depend on them (content negotiation), never for who is calling: the caller knows.
   * The answer has the declared response's shape (before JSON: bigints and dates as the procedures return them).
   */
  answer: (caller: Caller, input: z.input<S>, headers: FastifyRequest['headers']) => Promise<NoInfer<z.input<R>> | RestResponse>,
): RestRoute {
  const from = SOURCES.find((k) => spec[k]);
  return {
    method: spec.method,
    url: spec.url,
    input: from ? { from, schema: spec[from]! } : null,
    pathParams: spec.pathParams && (from === 'body' || from === 'query') ? [...spec.url.matchAll(/:(\w+)/g)].map((m) => m[1]!) : [],
    errorFields: spec.errorFields ?? {},
    summary: spec.summary,
    response: spec.response,
    status: spec.status ?? 200,
    text: spec.text,
    answer: (caller, input, headers) => answer(caller, input as z.input<S>, headers),
  };
}

/** The schema inside optional and nullable wrappers (`adminUsersInput` is an optional object). */
function unwrapped(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
  return s;
}

function objectShape(schema: z.ZodType): Record<string, z.ZodType> {
  const s = unwrapped(schema);
  return s instanceof z.ZodObject ? s.shape : {};
}

/**
 * Query strings and path parameters are text: the schema's fields are read from them, numbers as
 * numbers so the schema judges them (an empty value is absent, anything else not a number is NaN
 * and refused).
 */
function fromText(schema: z.ZodType, text: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(objectShape(schema))) {
    const v = text[key];
    if (v === undefined) continue;
    input[key] = unwrapped(field) instanceof z.ZodNumber ? (v === '' ? undefined : Number(v)) : v;
  }
  return input;
}

function inputOf(route: RestRoute, req: FastifyRequest): unknown {
  if (!route.input) return undefined;
  if (route.input.from === 'body') {
    if (!route.pathParams.length) return req.body ?? {};
    const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {};
    return { ...body, ...(req.params as Record<string, string>) };
  }
  const text = fromText(route.input.schema, (route.input.from === 'query' ? req.query : req.params) as Record<string, unknown>);
  return route.pathParams.length ? { ...text, ...(req.params as Record<string, string>) } : text;
}

/** JSON bigint values become numbers: bytes stay exact below 2^53 (8 PiB). */
export function jsonSafe(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)));
}

/** Builds the same context and caller as tRPC, runs the shim, and maps errors through the one mapper. */
function handlerFor(deps: ApiDeps, route: RestRoute) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    try {
      const result = await route.answer(await callerFor(deps, req, reply), inputOf(route, req), req.headers);
      if (result instanceof RestResponse) {
        if (result.contentType) return reply.code(result.status).type(result.contentType).send(result.body);
        return reply.code(result.status).send(jsonSafe(result.body));
      }
      return reply.send(jsonSafe(result));
    } catch (err) {
      if (!hasErrorAnswer(err)) throw err;
      const { status, body, retryAfter } = errorAnswer(err);
      if (status >= 500) req.log.error({ err: err.cause ?? err }, 'procedure failed');
      if (retryAfter) reply.header('retry-after', String(retryAfter));
      return reply.code(status).send({ ...body, ...route.errorFields });
    }
  };
}

export function registerRestRoutes(app: FastifyInstance, deps: ApiDeps, routes: readonly RestRoute[]): void {
  for (const route of routes) app.route({ method: route.method, url: route.url, handler: handlerFor(deps, route) });
}

/** `{ success: true, ...answer }`: the spec's shape of most answers, over the procedure's output schema. */
export const withSuccess = <T extends z.ZodObject>(schema: T) => schema.extend({ success: z.literal(true) });

/** `{ success: true }` and nothing else. */
export const SUCCESS = z.object({ success: z.literal(true) });
