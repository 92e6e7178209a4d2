import type { Locale } from './locales';
import type { Namespace } from './namespaces';

/**
 * One namespace of one language, loaded when first needed: the bundler makes each catalogue file a
 * chunk of its own, so a page downloads only its language's words for what it shows.
 */
export async function loadCatalogue(locale: Locale, ns: Namespace): Promise<Record<string, unknown>> {
  const mod = (await import(`./catalogues/${locale}/${ns}.ts`)) as { default: Record<string, unknown> };
  return mod.default;
}
