/**
 * The account parts the presets write in capitals. A template still holding one was saved before
 * the admin put their account in: every customer's line would be refused, or worse, be someone
 * else's account.
 */
export const PRESET_ACCOUNT_PLACEHOLDERS = ['USERNAME', 'CUSTOMER_ID', 'ZONE', 'PACKAGE_ID'] as const;

/** The first preset placeholder a template still holds (as a whole word, in capitals), or null. */
export function presetPlaceholderIn(template: string): string | null {
  for (const word of template.split(/[^A-Za-z0-9_]+/)) if ((PRESET_ACCOUNT_PLACEHOLDERS as readonly string[]).includes(word)) return word;
  return null;
}
