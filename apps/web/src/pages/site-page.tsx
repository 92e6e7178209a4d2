import { PublicData, PublicPage, usePublicData } from '../components/public-site';
import { sitePage } from '../lib/public-calls';

/**
 * /terms, /privacy, /acceptable-use, /refunds: the operator's Markdown pages, rendered by the server
 * with raw HTML off (its HTML is safe to insert), read from its content folder at each visit.
 */
export function SitePage({ slug, fallbackTitle }: { slug: string; fallbackTitle: string }) {
  const loaded = usePublicData(() => sitePage(slug), slug);
  const title = loaded.state === 'ready' ? loaded.data.title : fallbackTitle;
  return (
    <PublicPage title={title}>
      <PublicData loaded={loaded}>{(p) => <article className="card public-card prose" dangerouslySetInnerHTML={{ __html: p.html }} />}</PublicData>
    </PublicPage>
  );
}
