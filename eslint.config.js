// Every package linted in one eslint run (`pnpm lint`, and `pnpm test`): each package's own config
// (packages/config/eslint.config.js) applied to its folder alone. One run means one TypeScript
// project service for the type-aware rules, which parses the sources and type libraries the
// packages share once instead of once per package. `eslint .` in a package still works alone.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { configFor } from './packages/config/eslint.config.js';

const root = import.meta.dirname;
const SOURCES = '**/*.{js,mjs,cjs,ts,tsx,mts,cts}';

/** Packages with a `lint` script, as folders relative to the root. */
const packages = ['apps', 'packages'].flatMap((top) =>
  readdirSync(`${root}/${top}`)
    .map((d) => `${top}/${d}`)
    .filter((dir) => existsSync(`${root}/${dir}/package.json`) && JSON.parse(readFileSync(`${root}/${dir}/package.json`, 'utf8')).scripts?.lint),
);

/** A package's config objects, each limited to files in its folder (global ignores stay global). */
function inFolder(dir, configs) {
  const under = (glob) => `${dir}/${glob}`;
  return configs.map((c) => {
    if (Object.keys(c).length === 1 && c.ignores) return c;
    return { ...c, files: (c.files ?? [SOURCES]).map((f) => (typeof f === 'string' ? under(f) : f)), ...(c.ignores ? { ignores: c.ignores.map(under) } : {}) };
  });
}

export default [{ ignores: ['*.{js,mjs,cjs,ts}'] }, ...packages.flatMap((dir) => inFolder(dir, configFor(`${root}/${dir}`)))];
