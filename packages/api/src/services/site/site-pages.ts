/**
 * The operator's public pages (terms, privacy, acceptable use, refunds, or any other): Markdown
 * files `<slug>.md` in the content folder (CONTENT_DIR), read at every request so an operator
 * replaces a file without a build or a restart. The file's first `# Heading` is the page title.
 *
 * Rendered here with markdown-it with raw HTML off: HTML written in a file is shown as text and
 * links keep safe schemes only (no javascript:), so what the browser inserts cannot run script
 * even if a file is not what the operator meant it to be.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { DomainError } from '@proxyhub/core';

const markdown = new MarkdownIt({ html: false, linkify: true });
/** Lower-case words joined by '-': never a path (no '.', '/' or '\'). */
const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const TITLE_RE = /^#[ \t]+(.+?)[ \t#]*$/m;

export const PAGE_NOT_FOUND = 'Page not found';

export async function readSitePage(contentDir: string | undefined, slug: string): Promise<{ title: string; html: string }> {
  if (!contentDir || slug.length > 64 || !SLUG_RE.test(slug)) throw new DomainError('NOT_FOUND', PAGE_NOT_FOUND);
  let source: string;
  try {
    source = await readFile(join(contentDir, `${slug}.md`), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') throw new DomainError('NOT_FOUND', PAGE_NOT_FOUND);
    throw err;
  }
  const heading = TITLE_RE.exec(source);
  // The page shows the title itself: the heading is not rendered twice.
  const body = heading ? source.slice(0, heading.index) + source.slice(heading.index + heading[0].length) : source;
  const title = heading?.[1] ?? slug.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase());
  return { title, html: markdown.render(body) };
}
