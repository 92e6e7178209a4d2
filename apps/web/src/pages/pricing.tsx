import { Link } from 'react-router-dom';
import { centsToUsd, smallestOrderText } from '@proxyhub/core';
import { PublicDataPage } from '../components/public-site';
import { PlansTable } from '../components/plans-table';
import { publicPlans, publicPricing } from '../lib/public-calls';

const pricingAndPlans = async () => {
  const [pricing, plans] = await Promise.all([publicPricing(), publicPlans()]);
  return { ...pricing, plans };
};

/** /pricing: the price list in force, as the server prices orders (GET /api/pricing). */
export function PricingPage() {
  return (
    <PublicDataPage title="Pricing" lead="Pay only for the traffic you use, with no expiry while your account is open, or take a plan." load={pricingAndPlans}>
      {(p) => (
        <div className="public-stack">
          <section className="card public-card price-card" aria-label="Price per GB">
            <p className="hero-price">
              <span className="hero-price-amount" data-testid="price-per-gb">
                ${centsToUsd(p.pricePerGbCents)}
              </span>
              <span className="hero-price-unit">/GB</span>
            </p>
            <p className="muted">
              Smallest order <strong data-testid="min-order">{smallestOrderText(p)}</strong>. Top up with 300+ cryptocurrencies or a top-up code.
            </p>
            <p className="muted small">1 GB = 1,073,741,824 bytes, counted in both directions.</p>
            <Link to="/login?mode=register" className="btn btn-primary">
              Create Account
            </Link>
          </section>
          {p.tiers.length > 0 && (
            <section className="card public-card" aria-label="Volume pricing">
              <h2>Volume pricing</h2>
              <table className="public-table" data-testid="price-tiers">
                <thead>
                  <tr>
                    <th scope="col">Order of at least</th>
                    <th scope="col">Price per GB</th>
                  </tr>
                </thead>
                <tbody>
                  <tr>
                    <td>Any amount</td>
                    <td>${centsToUsd(p.pricePerGbCents)}</td>
                  </tr>
                  {p.tiers.map((t) => (
                    <tr key={t.minGb}>
                      <td>{t.minGb.toLocaleString('en-US')} GB</td>
                      <td>${centsToUsd(t.pricePerGbCents)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}
          {p.plans.length > 0 && (
            <section className="card public-card" aria-label="Plans">
              <h2>Plans</h2>
              <p className="muted">
                A fixed allowance each month or week, for a lower price per GB. Traffic spends the plan first, then your pay-as-you-go GB.
              </p>
              <PlansTable plans={p.plans} payAsYouGoCents={p.pricePerGbCents} />
            </section>
          )}
        </div>
      )}
    </PublicDataPage>
  );
}
