/**
 * The OpenAPI 3.1 document of the REST paths, generated from the same zod schemas the procedures
 * validate with (3.1 is JSON Schema 2020-12, which zod writes directly), so it cannot drift from
 * what the server accepts. Answers are described by each route's response schema: the procedure's
 * output schema (which the procedure checks with `.output`) or the shim's reshaping of it, written
 * as the shim sends it (bigints as integers, dates as ISO strings: see `jsonSafe`).
 */
import { z } from 'zod';
import type { RestRoute } from './rest';

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

/** Paths served outside the REST shims that callers still use over plain HTTP. */
export interface ExtraPath {
  method: 'GET' | 'POST';
  url: string;
  summary: string;
  security?: 'none';
  /** What it answers: a browser redirect, or JSON of this schema. */
  answer: 'redirect' | { description: string; schema: JsonSchema };
}

const ERROR_SCHEMA = {
  type: 'object',
  properties: {
    success: { const: false },
    error: { type: 'string', description: 'What went wrong, for a person.' },
    code: { type: 'string', description: 'What went wrong, for a program: a stable code (docs/api-errors.md).' },
  },
  required: ['success', 'error', 'code'],
} as const;

const errorAnswer = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

/** What JSON makes of the values zod cannot write as JSON Schema: `jsonSafe` sends bigints as numbers, dates as ISO strings. */
const asSent: NonNullable<Parameters<typeof z.toJSONSchema>[1]>['override'] = (ctx) => {
  const type = ctx.zodSchema._zod.def.type;
  if (type === 'bigint') Object.assign(ctx.jsonSchema, { type: 'integer' });
  if (type === 'date') Object.assign(ctx.jsonSchema, { type: 'string', format: 'date-time' });
};

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12', override: asSent }) as JsonSchema;
  return rest;
}

/** The JSON Schema of a route's answer as it is sent (for the document and for checking real answers against it). */
export const responseJsonSchema = (schema: z.ZodType): JsonSchema => jsonSchemaOf(schema, 'output');

function successAnswer(route: RestRoute) {
  const content: Record<string, { schema: JsonSchema }> = {};
  if (route.response) content['application/json'] = { schema: responseJsonSchema(route.response) };
  if (route.text) content[route.text.type] = { schema: { type: 'string' } };
  const description = route.text ? `Success. ${route.text.description}` : route.status === 201 ? 'Created.' : 'Success.';
  return { [String(route.status)]: { description, ...(Object.keys(content).length ? { content } : {}) } };
}

/** `/a/:id/b` is `/a/{id}/b` in OpenAPI. */
export const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

const tagOf = (url: string) => url.split('/')[1] ?? 'api';
const operationIdOf = (method: string, url: string) =>
  method.toLowerCase() +
  url
    .split(/[/:{}\-_]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

function operationFor(route: RestRoute) {
  const op: Record<string, unknown> = {
    operationId: operationIdOf(route.method, route.url),
    tags: [tagOf(route.url)],
    ...(route.summary ? { summary: route.summary } : {}),
    responses: {
      ...successAnswer(route),
      '400': errorAnswer('The input is not valid; `error` names the field.'),
      '401': errorAnswer('Not signed in, or the API key is not valid.'),
      '429': errorAnswer('Too many requests; see the Retry-After header.'),
    },
  };
  if (!route.input) return op;
  const schema = jsonSchemaOf(route.input.schema);
  if (route.input.from === 'body') {
    if (route.pathParams.length) {
      // Fields named in the URL are path parameters; the body holds the rest.
      const props = { ...(schema.properties ?? {}) };
      op.parameters = route.pathParams.map((name) => ({ name, in: 'path', required: true, schema: props[name] ?? { type: 'string' } }));
      for (const name of route.pathParams) delete props[name];
      const required = (schema.required ?? []).filter((n) => !route.pathParams.includes(n));
      op.requestBody = { required: true, content: { 'application/json': { schema: { ...schema, properties: props, required } } } };
      return op;
    }
    op.requestBody = { required: true, content: { 'application/json': { schema } } };
    return op;
  }
  const required = new Set(schema.required ?? []);
  op.parameters = Object.entries(schema.properties ?? {}).map(([name, s]) => ({
    name,
    in: route.input!.from === 'params' ? 'path' : 'query',
    required: route.input!.from === 'params' || required.has(name),
    schema: s,
  }));
  return op;
}

export function openApiDocument(routes: readonly RestRoute[], extra: readonly ExtraPath[], opts: { serverUrl: string; sessionCookieName: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) (paths[openApiPath(r.url)] ??= {})[r.method.toLowerCase()] = operationFor(r);
  for (const e of extra) {
    (paths[openApiPath(e.url)] ??= {})[e.method.toLowerCase()] = {
      operationId: operationIdOf(e.method, e.url),
      tags: [tagOf(e.url)],
      summary: e.summary,
      ...(e.security === 'none' ? { security: [] } : {}),
      responses:
        e.answer === 'redirect'
          ? { '302': { description: 'A redirect; the Location header says where.', headers: { Location: { schema: { type: 'string' } } } } }
          : { '200': { description: e.answer.description, content: { 'application/json': { schema: e.answer.schema } } } },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'ProxyHub API',
      version: '1.0.0',
      description: [
        'Every path answers JSON. Sign in with the session cookie the web app uses, or call from your own code with the',
        'an API key from Settings → API & proxy: send it as `Authorization: Bearer <API key>`. A key may call only the paths',
        'of its scopes (usage:read, accounts:read, accounts:write, lines:generate, billing:write); any other is a 403',
        '`Missing scope: <scope>`. The Default key and the session may call every path.',
        'Byte counts in the newer paths are decimal strings, because they exceed 2^53 over time.',
      ].join(' '),
    },
    servers: [{ url: opts.serverUrl }],
    security: [{ apiKey: [] }, { session: [] }, {}],
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (Settings → API & proxy → API keys), limited to its scopes.' },
        session: { type: 'apiKey', in: 'cookie', name: opts.sessionCookieName, description: 'The web app’s session cookie.' },
      },
      schemas: { Error: ERROR_SCHEMA },
    },
    paths,
  };
}
