/**
 * The catalogues' namespaces: one per part of the product, so a page loads only the words it shows
 * and each part's words live in a file of their own (catalogues/<locale>/<namespace>.ts).
 */
export const NAMESPACES = ['common', 'public', 'auth', 'dashboard', 'proxies', 'settings', 'billing', 'admin', 'network', 'errors', 'mail', 'bot'] as const;
export type Namespace = (typeof NAMESPACES)[number];
