/**
 * Kept complete: every language holds exactly English's keys in every namespace (a plural key in
 * exactly the forms its plural rules use), with the same placeholders, and no empty text.
 */
import { describe, expect, it } from 'vitest';
import { CATALOGUES } from './catalogues';
import { LOCALES } from './locales';
import { NAMESPACES } from './namespaces';
import { pickLocale, translatorFor } from './server';

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.set(key, v);
    else for (const [kk, vv] of flatten(v, key)) out.set(kk, vv);
  }
  return out;
}

const PLURAL = /_(zero|one|two|few|many|other)$/;
const placeholders = (text: string) => [...new Set([...text.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((m) => m[1]!))].sort();

/** A catalogue as base keys: plain keys with their text, plural bases with their forms. */
function shape(flat: Map<string, string>) {
  const plain = new Map<string, string>();
  const plural = new Map<string, Map<string, string>>();
  for (const [key, text] of flat) {
    const m = PLURAL.exec(key);
    if (m && flat.has(key.replace(PLURAL, '_other'))) {
      const base = key.replace(PLURAL, '');
      if (!plural.has(base)) plural.set(base, new Map());
      plural.get(base)!.set(m[1]!, text);
    } else plain.set(key, text);
  }
  return { plain, plural };
}

const english = (ns: string) => shape(flatten((CATALOGUES.en as unknown as Record<string, Tree>)[ns]!));

describe('catalogues', () => {
  it('English has every namespace, with text in every key', () => {
    for (const ns of NAMESPACES) {
      const flat = flatten((CATALOGUES.en as unknown as Record<string, Tree>)[ns]!);
      for (const [key, text] of flat) expect(text.trim(), `en ${ns}:${key}`).not.toBe('');
    }
  });

  for (const locale of LOCALES.filter((l) => l !== 'en')) {
    it(`${locale} holds exactly English's keys, plural forms and placeholders`, () => {
      const forms = new Intl.PluralRules(locale).resolvedOptions().pluralCategories.slice().sort();
      const problems: string[] = [];
      for (const ns of NAMESPACES) {
        const en = english(ns);
        const mine = shape(flatten((CATALOGUES[locale] as unknown as Record<string, Tree>)[ns]!));
        for (const key of en.plain.keys()) if (!mine.plain.has(key)) problems.push(`${ns}:${key} missing`);
        for (const key of mine.plain.keys()) if (!en.plain.has(key)) problems.push(`${ns}:${key} is not an English key`);
        for (const [key, text] of mine.plain) {
          if (!text.trim()) problems.push(`${ns}:${key} is empty`);
          const want = en.plain.get(key);
          if (want !== undefined && placeholders(text).join() !== placeholders(want).join()) {
            problems.push(`${ns}:${key} placeholders ${placeholders(text).join() || '-'} instead of ${placeholders(want).join() || '-'}`);
          }
        }
        for (const [base, enForms] of en.plural) {
          const have = mine.plural.get(base);
          if (!have) {
            problems.push(`${ns}:${base} (plural) missing`);
            continue;
          }
          const got = [...have.keys()].sort();
          if (got.join() !== forms.join()) problems.push(`${ns}:${base} has forms ${got.join()} instead of ${forms.join()}`);
          const want = placeholders(enForms.get('other')!).filter((p) => p !== 'count');
          for (const [form, text] of have) {
            if (!text.trim()) problems.push(`${ns}:${base}_${form} is empty`);
            if (
              placeholders(text)
                .filter((p) => p !== 'count')
                .join() !== want.join()
            )
              problems.push(`${ns}:${base}_${form} placeholders differ from English`);
            // One form can cover several numbers (Russian "one" is 1, 21, 31...): only English's "one" may leave the count out.
            if (form !== 'one' && placeholders(enForms.get('other')!).includes('count') && !placeholders(text).includes('count')) {
              problems.push(`${ns}:${base}_${form} lacks {{count}}`);
            }
          }
        }
        for (const base of mine.plural.keys()) if (!en.plural.has(base)) problems.push(`${ns}:${base} (plural) is not an English key`);
      }
      expect(problems).toEqual([]);
    });
  }

  it('the server translates in each language and falls back to English for anything else', () => {
    expect(translatorFor('ru')('language')).toBe('Язык');
    expect(translatorFor('pt-BR')('language')).toBe('Idioma');
    expect(translatorFor(null)('language')).toBe('Language');
    expect(translatorFor('de')('language')).toBe('Language');
  });
});

describe('pickLocale', () => {
  it('gives the best of our languages for a browser list, else English', () => {
    expect(pickLocale(['pt-PT'])).toBe('pt-BR');
    expect(pickLocale(['zh-Hans', 'en'])).toBe('zh-CN');
    expect(pickLocale(['es-MX'])).toBe('es');
    expect(pickLocale(['de-DE', 'ru'])).toBe('ru');
    expect(pickLocale(['de-DE'])).toBe('en');
    expect(pickLocale(['not a tag!'])).toBe('en');
    expect(pickLocale([])).toBe('en');
  });
});
