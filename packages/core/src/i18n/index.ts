/**
 * The product's languages: the locales, the namespaces, the catalogues' shape and loading. The web
 * app and the server (mails, the bot) run i18next over the same catalogues.
 */
import type { EnglishCatalogues } from './catalogues';

export * from './locales';
export * from './namespaces';
export * from './load';
export * from './format';
export * from './error-codes';
export * from './billing-line';
export * from './notices';
export type { Translation } from './catalogue-shape';

// Keys are typed from the English catalogues: a missing or misspelt key fails the typecheck.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: EnglishCatalogues;
  }
}
