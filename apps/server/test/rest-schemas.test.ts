/**
 * The REST paths are described by the procedures' own zod schemas: enough to write an OpenAPI
 * document from them (done here in miniature), and path parameters match the URLs.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { restRoutes } from '../src/rest';

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[] };

function openApiPaths() {
  const paths: Record<string, Record<string, { in: string; schema: JsonSchema } | null>> = {};
  for (const r of restRoutes) {
    const schema = r.input ? (z.toJSONSchema(r.input.schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema) : null;
    (paths[r.url] ??= {})[r.method.toLowerCase()] = r.input && schema ? { in: r.input.from, schema } : null;
  }
  return paths;
}

describe('REST schemas', () => {
  it('every path turns into a JSON Schema description of its input', () => {
    const paths = openApiPaths();
    expect(paths['/auth/register']?.post).toMatchObject({
      in: 'body',
      schema: { type: 'object', required: expect.arrayContaining(['email', 'password', 'name']) },
    });
    expect(paths['/admin/users']?.get).toMatchObject({ in: 'query', schema: { properties: { page: { type: 'integer' }, search: { type: 'string' } } } });
    expect(paths['/admin/codes/create']?.post?.schema.properties).toHaveProperty('expiresAt');
    expect(paths['/auth/user']?.get).toBeNull();
  });

  it('path parameters are exactly the fields of their schema', () => {
    for (const r of restRoutes) {
      const inUrl = [...r.url.matchAll(/:(\w+)/g)].map((m) => m[1]).sort();
      const fields = r.input ? Object.keys((z.toJSONSchema(r.input.schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema).properties ?? {}) : [];
      // A path's parameters are its params schema, or (with a JSON body) named fields of the body's schema.
      const declared = r.input?.from === 'params' ? fields.sort() : [...r.pathParams].sort();
      expect(declared, r.url).toEqual(inUrl);
      for (const p of r.pathParams) expect(fields, r.url).toContain(p);
    }
  });
});
