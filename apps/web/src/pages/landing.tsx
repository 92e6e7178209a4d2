import { Trans, useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { Link } from 'react-router-dom';
import { SiteFooter, SiteHeader } from '../components/public-site';
import { usePageTitle } from '../lib/page-title';
import { type Pricing } from '@proxyhub/core';
import { fmt } from '../lib/format';
import { usePublicPricing } from '../lib/public-calls';
import { smallestOrderWords, wholeGb } from '../lib/pricing-words';

type PublicT = TFunction<'public'>;

/** "$0.90 per GB", from which amount a volume tier is cheaper, and the smallest order with what it costs. */
function pricingText(t: PublicT, p: Pricing, smallest: string): string {
  const best = p.tiers.at(-1);
  const volume = best ? t('landing.pricingVolume', { price: fmt.cents(best.pricePerGbCents), gb: wholeGb(best.minGb) }) : '';
  return t('landing.pricingText', { price: fmt.cents(p.pricePerGbCents), volume, smallest });
}

const FEATURES = [
  { title: 'landing.instantTitle', text: 'landing.instantText', icon: 'M13 2 4 14h7l-1 8 9-12h-7z' },
  {
    title: 'landing.globalTitle',
    text: 'landing.globalText',
    icon: 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm0 0c2.8 2.7 4 6 4 10s-1.2 7.3-4 10m0-20c-2.8 2.7-4 6-4 10s1.2 7.3 4 10M2 12h20',
  },
  { title: 'landing.pricingTitle', text: null, icon: 'M12 1v22M17 5H9.5a3.5 3.5 0 0 0 0 7h5a3.5 3.5 0 0 1 0 7H6' },
] as const;

export function LandingPage() {
  const { t } = useTranslation('public');
  usePageTitle(t('landing.title'));
  const pricing = usePublicPricing();
  const smallest = smallestOrderWords(pricing);
  const price = fmt.cents(pricing.pricePerGbCents);
  return (
    <div className="landing">
      <SiteHeader />
      <main id="main" tabIndex={-1}>
        <section className="hero">
          <p className="hero-eyebrow">{t('landing.eyebrow')}</p>
          <h1>ProxyHub</h1>
          <p className="hero-tagline">{t('landing.tagline')}</p>
          <p className="hero-price" aria-label={t('landing.priceLabel', { price })} data-testid="hero-price">
            <span className="hero-price-amount">{price}</span>
            <span className="hero-price-unit">{t('perGb')}</span>
          </p>
          <div className="hero-actions">
            <Link to="/login?mode=register" className="btn btn-primary btn-lg">
              {t('landing.getStarted')}
            </Link>
          </div>
          <ul className="hero-stats" aria-label={t('landing.highlights')}>
            {/* Each claim links to what backs it. */}
            <li>
              <Link to="/locations" className="hero-stat-link">
                <Trans t={t} i18nKey="landing.countries" components={{ b: <strong /> }} />
              </Link>
            </li>
            <li>
              <Link to="/status" className="hero-stat-link">
                <Trans t={t} i18nKey="landing.uptime" components={{ b: <strong /> }} />
              </Link>
            </li>
            <li>
              <Trans t={t} i18nKey="landing.protocols" components={{ b: <strong /> }} />
            </li>
          </ul>
        </section>
        <section className="features" aria-label={t('landing.features')}>
          {FEATURES.map((f) => (
            <article className="feature" key={f.title}>
              <span className="feature-icon" aria-hidden="true">
                <svg viewBox="0 0 24 24">
                  <path d={f.icon} />
                </svg>
              </span>
              <h2>{t(f.title)}</h2>
              <p>{f.text ? t(f.text) : pricingText(t, pricing, smallest)}</p>
            </article>
          ))}
        </section>
      </main>
      <SiteFooter />
    </div>
  );
}
