/** An ILIKE pattern matching `text` anywhere: `%` and `_` in it are literal characters, not wildcards. */
export const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
