import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PublicDataPage } from '../components/public-site';
import { PlansTable } from '../components/plans-table';
import { fmt } from '../lib/format';
import { smallestOrderWords, wholeGb } from '../lib/pricing-words';
import { publicPlans, publicPricing } from '../lib/public-calls';

const pricingAndPlans = async () => {
  const [pricing, plans] = await Promise.all([publicPricing(), publicPlans()]);
  return { ...pricing, plans };
};

/** Bytes in a GB, as the counters count them. */
const GB_BYTES = 1_073_741_824;

/** /pricing: the price list in force, as the server prices orders (GET /api/pricing). */
export function PricingPage() {
  const { t } = useTranslation('public');
  return (
    <PublicDataPage title={t('pricing.title')} lead={t('pricing.lead')} load={pricingAndPlans}>
      {(p) => (
        <div className="public-stack">
          <section className="card public-card price-card" aria-label={t('pricing.pricePerGb')}>
            <p className="hero-price">
              <span className="hero-price-amount" data-testid="price-per-gb">
                {fmt.cents(p.pricePerGbCents)}
              </span>
              <span className="hero-price-unit">{t('perGb')}</span>
            </p>
            <p className="muted">
              <Trans t={t} i18nKey="pricing.smallest" values={{ smallest: smallestOrderWords(p) }} components={{ b: <strong data-testid="min-order" /> }} />
            </p>
            <p className="muted small">{t('pricing.gbDefinition', { bytes: fmt.number(GB_BYTES) })}</p>
            <Link to="/login?mode=register" className="btn btn-primary">
              {t('createAccount')}
            </Link>
          </section>
          {p.tiers.length > 0 && (
            <section className="card public-card" aria-label={t('pricing.volume')}>
              <h2>{t('pricing.volume')}</h2>
              <table className="public-table" data-testid="price-tiers">
                <thead>
                  <tr>
                    <th scope="col">{t('pricing.atLeast')}</th>
                    <th scope="col">{t('pricing.pricePerGb')}</th>
                  </tr>
                </thead>
                <tbody>
                  <tr>
                    <td>{t('pricing.anyAmount')}</td>
                    <td>{fmt.cents(p.pricePerGbCents)}</td>
                  </tr>
                  {p.tiers.map((tier) => (
                    <tr key={tier.minGb}>
                      <td>{wholeGb(tier.minGb)}</td>
                      <td>{fmt.cents(tier.pricePerGbCents)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}
          {p.plans.length > 0 && (
            <section className="card public-card" aria-label={t('pricing.plans')}>
              <h2>{t('pricing.plans')}</h2>
              <p className="muted">{t('pricing.plansLead')}</p>
              <PlansTable plans={p.plans} payAsYouGoCents={p.pricePerGbCents} />
            </section>
          )}
        </div>
      )}
    </PublicDataPage>
  );
}
