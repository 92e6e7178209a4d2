/**
 * The operator's public pages (terms, privacy, acceptable use, refunds, or any other): Markdown
 * files `<slug>.md` in the content folder (CONTENT_DIR), read at every request so an operator
 * replaces a file without a build or a restart. The file's first `# Heading` is the page title.
 *
 * Rendered here with markdown-it with raw HTML off: HTML written in a file is shown as text and
 * links keep safe schemes only (no javascript:), so what the browser inserts cannot run script
 * even if a file is not what the operator meant it to be.
 *
 * The seller's settings fill the pages' fields after rendering, escaped: `{{company}}`, `{{address}}`
 * (its lines kept), `{{support_email}}` (a mailto link), `{{last_updated}}` and `{{effective}}`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { DomainError, escapeHtml, type Seller } from '@proxyhub/core';

const markdown = new MarkdownIt({ html: false, linkify: true });
/** Lower-case words joined by '-': never a path (no '.', '/' or '\'). */
const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const TITLE_RE = /^#[ \t]+(.+?)[ \t#]*$/m;

export const PAGE_NOT_FOUND = 'Page not found';

const FIELD_RE = /\{\{(company|address|support_email|last_updated|effective)\}\}/g;
type Field = 'company' | 'address' | 'support_email' | 'last_updated' | 'effective';

/** The seller's field as text (a title) or as HTML (the page). */
function fieldValue(seller: Seller, field: Field, html: boolean): string {
  const text = {
    company: seller.companyName,
    address: seller.address,
    support_email: seller.supportEmail,
    last_updated: seller.legalUpdatedOn,
    effective: seller.legalEffectiveOn,
  }[field];
  if (!html) return text.replace(/\n/g, ', ');
  if (field === 'support_email') return `<a href="mailto:${escapeHtml(text)}">${escapeHtml(text)}</a>`;
  return escapeHtml(text).replace(/\n/g, '<br>\n');
}

export async function readSitePage(contentDir: string | undefined, slug: string, seller: Seller): Promise<{ title: string; html: string }> {
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
  return {
    title: title.replace(FIELD_RE, (_, f: Field) => fieldValue(seller, f, false)),
    html: markdown.render(body).replace(FIELD_RE, (_, f: Field) => fieldValue(seller, f, true)),
  };
}
