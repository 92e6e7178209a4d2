/**
 * Error codes: the English errors catalogue is the table, describeError finds a text's code and
 * params, every message the source can produce has a code of its own (the completeness guard), and
 * docs/api-errors.md lists exactly the catalogue.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import en from './catalogues/en/errors';
import { describeError, errorCodeOf, GENERIC_ERROR_CODES, genericErrorCode, isErrorCode } from './error-codes';
import { findErrorSources, WILDCARD } from './error-sources';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

describe('describeError', () => {
  it('finds the code and the varying parts of a text', () => {
    expect(describeError('Invalid email or password')).toEqual({ code: 'INVALID_CREDENTIALS', params: {} });
    expect(describeError('Missing scope: proxies:read')).toEqual({ code: 'MISSING_SCOPE', params: { scope: 'proxies:read' } });
    expect(describeError('Minimum order is 12GB ($10.80)')).toEqual({ code: 'MIN_ORDER', params: { gb: '12', usd: '10.80' } });
    expect(describeError('Your role (viewer) cannot manage API keys')).toEqual({ code: 'ROLE_CANNOT', params: { role: 'viewer', action: 'manage API keys' } });
    expect(describeError('Too many attempts. Please try again in 5 minutes.')).toEqual({ code: 'TOO_MANY_ATTEMPTS_MINUTES', params: { count: '5' } });
    expect(describeError('This code has already been redeemed.')?.code).toBe('CODE_ALREADY_USED');
  });

  it('is anchored: a text with more or less around a template is not it', () => {
    expect(describeError('Invalid email or password!')).toBeNull();
    expect(describeError('Invalid email or password, again')).toBeNull();
    expect(describeError('Invalid input')).toBeNull();
    expect(describeError('Invalid input: expected object, received null')).toBeNull();
    expect(describeError('Email: Invalid input: expected string, received number')).toBeNull();
  });

  it('prefers the template with the most literal text', () => {
    expect(describeError('username: Malformed username')).toEqual({ code: 'USERNAME_PROBLEM', params: { reason: 'Malformed username' } });
    expect(describeError('Price per GB must be a number')).toEqual({ code: 'FIELD_MUST_BE_NUMBER', params: { field: 'Price per GB' } });
    expect(describeError('Username template: unknown placeholder {x}')?.code).toBe('USERNAME_TEMPLATE_PROBLEM');
    expect(describeError('Page must be a number')?.code).toBe('PAGE_NUMBER');
  });

  it('gives a text no template matches the generic code of its status', () => {
    expect(errorCodeOf('Something nobody wrote', 400)).toBe('BAD_REQUEST');
    expect(errorCodeOf('Something nobody wrote', 404)).toBe('NOT_FOUND');
    expect(errorCodeOf('Something nobody wrote', 418)).toBe('BAD_REQUEST');
    expect(errorCodeOf('Something nobody wrote', 502)).toBe('INTERNAL');
    expect(genericErrorCode(429)).toBe('TOO_MANY_REQUESTS');
    expect(errorCodeOf('Internal server error', 500)).toBe('INTERNAL');
    expect(isErrorCode('MIN_ORDER')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
  });

  it('codes are UPPER_SNAKE', () => {
    for (const code of [...Object.keys(en), ...Object.values(GENERIC_ERROR_CODES)]) expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
  });
});

/** Texts the scan finds in message positions that are not messages: the labels a schema's message builders take. */
const NOT_MESSAGES = new Set([
  'Price per GB',
  'Tier price per GB',
  'Minimum order',
  'Max redemptions',
  'Max per user',
  'Daily limit',
  'Monthly limit',
  'Balance URL',
  'Usage URL',
  'Username template',
  'Password template',
  'Last updated',
  'Effective date',
  ' is required',
]);
/** Messages passed on as they came, found where they are made. */
const PASSED_ON = [
  'packages/api/src/trpc.ts', // a domain error's own message
  'apps/server/src/error-answer.ts', // a procedure's message or first zod message
  'apps/server/src/plugins/json-edge.ts', // the framework's own refusals (MALFORMED_JSON, UNSUPPORTED_CONTENT_TYPE, else generic codes)
  'apps/server/src/rest/auth.ts', // sign-in's "verify first" answer (VERIFY_EMAIL_FIRST)
];

describe('every message has a code (the completeness guard)', () => {
  const { sources, unresolved } = findErrorSources(ROOT);

  it('found the messages of the services, the transport and the schemas', () => {
    const found = new Set(sources.map((s) => s.pattern));
    for (const text of [
      'Invalid email or password',
      'Email is required',
      'Input contains invalid characters',
      `Missing scope: ${WILDCARD}`,
      'Internal server error',
    ])
      expect(found).toContain(text);
    expect(sources.length).toBeGreaterThan(400);
  });

  it('follows every message to its text', () => {
    expect(unresolved.filter((u) => !PASSED_ON.some((p) => u.startsWith(p)))).toEqual([]);
  });

  it('every text matches a template of the errors catalogue', () => {
    const missing = new Set<string>();
    for (const { pattern, at } of sources) {
      const bare = pattern.replaceAll(WILDCARD, '').trim();
      // Enum values, single words and labels are the scan's catch of non-messages; a label and a
      // nested message ("${field}: ${problem}") has a template for each label (USERNAME_TEMPLATE_PROBLEM).
      if (NOT_MESSAGES.has(pattern) || (!pattern.includes(WILDCARD) && !bare.includes(' ')) || !/\w/.test(bare)) continue;
      if (!describeError(pattern.replaceAll(WILDCARD, '7'))) missing.add(`${at}: ${JSON.stringify(pattern.replaceAll(WILDCARD, '${...}'))}`);
    }
    expect([...missing]).toEqual([]);
  });
});

describe('docs/api-errors.md', () => {
  it('lists every code with its English text, and nothing else', () => {
    const doc = readFileSync(`${ROOT}docs/api-errors.md`, 'utf8');
    const rows = [...doc.matchAll(/^\| `([A-Z0-9_]+)` +\| ([^|]*?) *\| (.*?) +\|$/gm)].map((m) => [m[1]!, m[3]!.trim()] as const);
    const listed = rows.filter(([code]) => isErrorCode(code)).map(([code, text]) => [code, text.replace(/^`|`$/g, '').replaceAll('\\|', '|')]);
    expect(Object.fromEntries(listed)).toEqual(en);
    expect(rows.map(([code]) => code).filter((c) => !isErrorCode(c) && !Object.values(GENERIC_ERROR_CODES).includes(c as never))).toEqual([]);
  });
});
