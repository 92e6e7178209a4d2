import { PublicDataPage } from '../components/public-site';
import { offeredCountries } from '../lib/public-calls';

/** /locations: the countries offered now, with how many states and cities each can target. */
export function LocationsPage() {
  return (
    <PublicDataPage title="Locations" lead="Residential IPs by country, state and city. Pick the location when you generate proxies." load={offeredCountries}>
      {(countries) => (
        <section className="card public-card" aria-label="Countries">
          <p data-testid="country-count">
            <strong>{countries.length}</strong> {countries.length === 1 ? 'country' : 'countries'} offered.
          </p>
          <table className="public-table" data-testid="locations-table">
            <thead>
              <tr>
                <th scope="col">Country</th>
                <th scope="col">States</th>
                <th scope="col">Cities</th>
              </tr>
            </thead>
            <tbody>
              {countries.map((c) => (
                <tr key={c.code} data-country={c.code}>
                  <td>
                    {c.name} <span className="muted">({c.code})</span>
                  </td>
                  <td>{c.states.toLocaleString('en-US')}</td>
                  <td>{c.cities.toLocaleString('en-US')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </PublicDataPage>
  );
}
