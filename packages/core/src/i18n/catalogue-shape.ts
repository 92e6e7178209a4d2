/**
 * What a translation of an English namespace must hold: every key English has (nested the same
 * way) and nothing else, checked by `satisfies` at compile time. A plural key is English's
 * `<key>_one`/`<key>_other`; a language holds `<key>_other` and the other forms its plural rules
 * use (Russian `_few`, `_many`; Chinese only `_other`), which the completeness test checks.
 */
type PluralForm = 'zero' | 'one' | 'two' | 'few' | 'many';

export type Translation<T> = {
  [K in keyof T as K extends `${string}_${PluralForm}` ? never : K]: T[K] extends string ? string : Translation<T[K]>;
} & {
  [K in keyof T as K extends `${infer Base}_other` ? `${Base}_${PluralForm}` : never]?: string;
};

/** A namespace's English catalogue: nested objects of strings. */
export interface CatalogueTree {
  readonly [key: string]: string | CatalogueTree;
}
