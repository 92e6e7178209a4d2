// The architecture's "never" rules (docs/design.md, "Rules of the house"), checked by eslint's no-restricted-imports in each
// package's `lint`, so `pnpm test` fails when one is broken. Each entry is a regular expression an
// import path must not match, with the reason shown in the error. To add a rule, add an entry to
// the package's list below; a new `packages/*` package needs no entry: it gets NEW_PACKAGE (it may
// depend on core and nothing else of ours), and gateway and api may import it.

/** A restriction: import paths matching `regex` are refused with `message`. */
const never = (regex, message, opts = {}) => ({ regex, message, ...opts });

/** Reaching into another package's folder by a relative path bypasses every rule below. */
const OTHER_FOLDER = never('^(\\.\\./)+(apps|packages)/', 'Import another package by its name, never by a path into its folder');
const APPS = never('^@proxyhub/(server|gateway|web)(/|$)', 'Packages never import apps');
const TESTING = never('^@proxyhub/testing(/|$)', 'The test harness is for tests only');
const DATABASE = never('^(@proxyhub/db|drizzle-orm|postgres|@electric-sql/pglite)(/|$)', 'Only the server (through packages/api) reaches the database');
const AUTH = never('^(@proxyhub/auth|lucia)(/|$)', 'Credentials, sessions and secrets stay on the server (packages/auth)');
/** Type-only imports of the api (AppRouter, its answers) are allowed: they vanish at build time. */
const API_RUNTIME = never('^@proxyhub/api(/|$)', "Only the api's types may be imported here (`import type`): talk to the server through tRPC", {
  allowTypeImports: true,
});

const NEW_PACKAGE = [never('^@proxyhub/(?!core(/|$))', 'A shared package depends on nothing of ours but core'), OTHER_FOLDER];

/** By package name: what its `src` may never import. */
export const NEVER = {
  '@proxyhub/core': [never('^@proxyhub/', 'Core depends on nothing of ours'), OTHER_FOLDER],
  '@proxyhub/db': [never('^@proxyhub/(?!core(/|$))', 'The database package depends on core only'), OTHER_FOLDER],
  '@proxyhub/auth': [never('^@proxyhub/(?!(core|db)(/|$))', 'Auth depends on core and db only'), OTHER_FOLDER],
  '@proxyhub/api': [APPS, TESTING, OTHER_FOLDER],
  '@proxyhub/testing': [APPS, OTHER_FOLDER],
  '@proxyhub/gateway': [
    DATABASE,
    AUTH,
    API_RUNTIME,
    TESTING,
    never('^@proxyhub/(server|web)(/|$)', 'The gateway talks to the server only through tRPC'),
    OTHER_FOLDER,
  ],
  '@proxyhub/web': [
    DATABASE,
    AUTH,
    API_RUNTIME,
    TESTING,
    never('^@proxyhub/(server|gateway)(/|$)', 'The web app talks to the server only through its API'),
    never('^@proxyhub/core/node(/|$)', 'Server-side code (environment, secrets) never reaches the browser'),
    never('^node:', 'Browser code: no Node built-ins (environment, files, secrets)'),
    OTHER_FOLDER,
  ],
  '@proxyhub/server': [OTHER_FOLDER],
};

/** Folders within a package with rules of their own, on top of the package's. */
export const NEVER_IN = {
  '@proxyhub/api': {
    // Business logic knows no transport: a service is (tx, input), called by procedures and shims.
    'src/services/**': [never('^(\\.\\./)+(routers|context|trpc|root)(/|\\.|$)', 'Services never import routers or the tRPC context')],
  },
};

const rule = (restrictions) => ['error', { patterns: restrictions }];

/** The eslint config objects that enforce the rules for one package (by its name). */
export function architecture(name) {
  if (name === '@proxyhub/config') return [];
  const own = NEVER[name] ?? NEW_PACKAGE;
  // A later config object replaces an earlier one's options for the same rule: each folder's
  // object carries the package's restrictions too.
  return [
    { files: ['src/**/*.{ts,tsx}'], rules: { '@typescript-eslint/no-restricted-imports': rule(own) } },
    ...Object.entries(NEVER_IN[name] ?? {}).map(([folder, extra]) => ({
      files: [`${folder}/*.{ts,tsx}`],
      rules: { '@typescript-eslint/no-restricted-imports': rule([...own, ...extra]) },
    })),
  ];
}
