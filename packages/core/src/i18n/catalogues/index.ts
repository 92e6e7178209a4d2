import en from './en';
import es from './es';
import ptBR from './pt-BR';
import ru from './ru';
import zhCN from './zh-CN';
import type { Locale } from '../locales';

/** Every catalogue of every language, for the server; the web app loads one namespace at a time (load.ts). */
export const CATALOGUES = { en, ru, 'zh-CN': zhCN, es, 'pt-BR': ptBR } satisfies Record<Locale, unknown>;
export type EnglishCatalogues = typeof en;
