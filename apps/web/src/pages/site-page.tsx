import { useTranslation } from 'react-i18next';
import { PublicData, PublicPage, usePublicData } from '../components/public-site';
import { sitePage } from '../lib/public-calls';

export type SitePageSlug = 'terms' | 'privacy' | 'acceptable-use' | 'refunds';

/**
 * /terms, /privacy, /acceptable-use, /refunds: the operator's Markdown pages, rendered by the server
 * with raw HTML off (its HTML is safe to insert), read from its content folder at each visit. The
 * page stays as the operator wrote it; only its title until loaded is in the language on show.
 */
export function SitePage({ slug }: { slug: SitePageSlug }) {
  const { t } = useTranslation('public');
  const loaded = usePublicData(() => sitePage(slug), slug);
  const title = loaded.state === 'ready' ? loaded.data.title : t(`sitePages.${slug}`);
  return (
    <PublicPage title={title} operatorTitle={loaded.state === 'ready'}>
      <PublicData loaded={loaded}>
        {(p) => <article className="card public-card prose" data-operator-content lang="en" dangerouslySetInnerHTML={{ __html: p.html }} />}
      </PublicData>
    </PublicPage>
  );
}
