import { Link } from 'react-router-dom';
import { SiteFooter, SiteHeader } from '../components/public-site';
import { usePageTitle } from '../lib/page-title';
import { centsToUsd, smallestOrderText, type Pricing } from '@proxyhub/core';
import { usePublicPricing } from '../lib/public-calls';

/** "$0.90 per GB", from which amount a volume tier is cheaper, and the smallest order with what it costs. */
function pricingText(p: Pricing): string {
  const best = p.tiers.at(-1);
  const volume = best ? ` ($${centsToUsd(best.pricePerGbCents)} per GB from ${best.minGb} GB)` : '';
  return `Pay only for the data you use: $${centsToUsd(p.pricePerGbCents)} per GB${volume}, no subscription, the smallest order ${smallestOrderText(p)}. Top up with 300+ cryptocurrencies or a top-up code.`;
}

const FEATURES = [
  {
    title: 'Instant Generation',
    text: 'Generate up to 10,000 proxy credentials in seconds, in the format your tools expect. HTTP, HTTPS and SOCKS5 on one endpoint.',
    icon: 'M13 2 4 14h7l-1 8 9-12h-7z',
  },
  {
    title: 'Global Network',
    text: 'Residential IPs in 10+ countries, targetable down to state and city, with sticky sessions from 1 minute to 7 days.',
    icon: 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm0 0c2.8 2.7 4 6 4 10s-1.2 7.3-4 10m0-20c-2.8 2.7-4 6-4 10s1.2 7.3 4 10M2 12h20',
  },
  {
    title: 'Simple Pricing',
    text: pricingText,
    icon: 'M12 1v22M17 5H9.5a3.5 3.5 0 0 0 0 7h5a3.5 3.5 0 0 1 0 7H6',
  },
];

export function LandingPage() {
  usePageTitle('Residential proxies');
  const pricing = usePublicPricing();
  const price = `$${centsToUsd(pricing.pricePerGbCents)}`;
  return (
    <div className="landing">
      <SiteHeader />
      <main id="main" tabIndex={-1}>
        <section className="hero">
          <p className="hero-eyebrow">Residential proxies</p>
          <h1>ProxyHub</h1>
          <p className="hero-tagline">Premium residential proxies, generated instantly. Real IPs, real locations, paid by the gigabyte.</p>
          <p className="hero-price" aria-label={`Price: ${price} per GB`} data-testid="hero-price">
            <span className="hero-price-amount">{price}</span>
            <span className="hero-price-unit">/GB</span>
          </p>
          <div className="hero-actions">
            <Link to="/login?mode=register" className="btn btn-primary btn-lg">
              Get Started
            </Link>
          </div>
          <ul className="hero-stats" aria-label="Highlights">
            {/* Each claim links to what backs it. */}
            <li>
              <Link to="/locations" className="hero-stat-link">
                <strong>10+</strong> countries
              </Link>
            </li>
            <li>
              <Link to="/status" className="hero-stat-link">
                <strong>99.9%</strong> uptime
              </Link>
            </li>
            <li>
              <strong>HTTP &amp; SOCKS5</strong> on one port
            </li>
          </ul>
        </section>
        <section className="features" aria-label="Features">
          {FEATURES.map((f) => (
            <article className="feature" key={f.title}>
              <span className="feature-icon" aria-hidden="true">
                <svg viewBox="0 0 24 24">
                  <path d={f.icon} />
                </svg>
              </span>
              <h2>{f.title}</h2>
              <p>{typeof f.text === 'string' ? f.text : f.text(pricing)}</p>
            </article>
          ))}
        </section>
      </main>
      <SiteFooter />
    </div>
  );
}
