/**
 * Code names in words for people: `expiresAt` -> "Expires at", `deltaGB` -> "Delta GB",
 * `admin.createCodes` -> "Create codes" (the part after the last dot). Acronyms stay upper-case.
 */
export function humanizeIdentifier(name: string): string {
  const last = name.split('.').at(-1) ?? name;
  const words = last
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .trim()
    .split(/\s+/)
    .map((w) => (w.length > 1 && w === w.toUpperCase() ? w : w.toLowerCase()));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
