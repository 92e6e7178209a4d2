import { Trans, useTranslation } from 'react-i18next';
import { PublicDataPage } from '../components/public-site';
import { currentLocale } from '../i18n';
import { fmt } from '../lib/format';
import { offeredCountries } from '../lib/public-calls';

/** A country's name in the language on show (Intl's names); English keeps the catalogue's own. */
function countryName(code: string, name: string): string {
  const locale = currentLocale();
  if (locale === 'en') return name;
  try {
    return new Intl.DisplayNames([locale], { type: 'region', fallback: 'none' }).of(code) ?? name;
  } catch {
    return name;
  }
}

/** /locations: the countries offered now, with how many states and cities each can target. */
export function LocationsPage() {
  const { t } = useTranslation('public');
  return (
    <PublicDataPage title={t('locations.title')} lead={t('locations.lead')} load={offeredCountries}>
      {(countries) => (
        <section className="card public-card" aria-label={t('locations.countries')}>
          <p data-testid="country-count">
            <Trans t={t} i18nKey="locations.offered" count={countries.length} components={{ b: <strong /> }} />
          </p>
          <table className="public-table" data-testid="locations-table">
            <thead>
              <tr>
                <th scope="col">{t('locations.country')}</th>
                <th scope="col">{t('locations.states')}</th>
                <th scope="col">{t('locations.cities')}</th>
              </tr>
            </thead>
            <tbody>
              {countries.map((c) => (
                <tr key={c.code} data-country={c.code}>
                  <td>
                    {countryName(c.code, c.name)} <span className="muted">({c.code})</span>
                  </td>
                  <td>{fmt.number(c.states)}</td>
                  <td>{fmt.number(c.cities)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </PublicDataPage>
  );
}
