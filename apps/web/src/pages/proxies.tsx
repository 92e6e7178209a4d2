import { useEffect, useMemo, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { zodResolver } from '@hookform/resolvers/zod';
import { useWatch, type Resolver, type ResolverResult } from 'react-hook-form';
import { flushSync } from 'react-dom';
import { Link } from 'react-router-dom';
import {
  DEFAULT_COUNTRY,
  DEFAULT_DURATION_MINUTES,
  DEFAULT_PROXY_COUNT,
  DEFAULT_PROXY_FORMAT,
  DURATION_OPTIONS_MINUTES,
  GENERATOR_DURATION_OPTIONS,
  MAX_PROXY_COUNT,
  PROXY_FORMATS,
  PROXY_NOTICE_MS,
  formatProxyList,
  generateProxies,
  generateProxiesForm,
  isSocksFormat,
  locationString,
  type GeneratedProxy,
  type ProxyFormat,
} from '@proxyhub/core';
import { LineTest } from '../components/line-test';
import { NewIpOutcome, useNewIp } from '../components/new-ip';
import { ProxyLines } from '../components/proxy-lines';
import { ProxySnippets } from '../components/proxy-snippets';
import { Alert, Button, Card, CopyButton, PageHeader, SelectField } from '../components/ui';
import { downloadText } from '../lib/clipboard';
import { useDurationLabel } from '../lib/durations';
import { fmt } from '../lib/format';
import { FormField, NumberField, submitWith, useSchemaForm } from '../lib/form';
import { useSession } from '../session';
import { trpc } from '../trpc';
import { SessionLimitNote } from '../components/session-limit-note';
import { usePageTitle } from '../lib/page-title';

/** What the form holds: the city as typed (searchable among thousands), the count as the box has it. */
interface Values {
  country: string;
  state: string;
  city: string;
  zip: string;
  asn: string;
  hard: boolean;
  durationMinutes: number;
  count: number;
}
/** What the pools serving the chosen country can carry (locations.country): the fields shown for it. */
type Offer = { zip: boolean; asn: boolean };
type City = { code: string; name: string };
const schemaResolver = zodResolver(generateProxiesForm);
/** What the schema hands on: the location as codes, the duration and count as numbers. */
type GenerateProxiesForm = ReturnType<typeof generateProxiesForm.parse>;
/** A typed city is one of the listed ones, by name or code, any case. */
const cityOf = (cities: readonly City[] | undefined, text: string) => {
  const typed = text.trim().toLowerCase();
  return typed ? (cities?.find((c) => c.name.toLowerCase() === typed || c.code.toLowerCase() === typed) ?? null) : undefined;
};

/**
 * The generator's core schema on the form's values, the typed city first matched to a listed one
 * (its code is what the username carries); a city not listed is the one message.
 */
const generatorResolver =
  (
    cities: { readonly current: readonly City[] | undefined },
    offer: { readonly current: Offer },
    cityNotListed: { readonly current: string },
  ): Resolver<Values, unknown, GenerateProxiesForm> =>
  async (values, context, options): Promise<ResolverResult<Values, GenerateProxiesForm>> => {
    const city = cityOf(cities.current, values.city);
    if (city === null) return { values: {}, errors: { city: { type: 'validate', message: cityNotListed.current } } };
    // A ZIP or ASN typed for a country whose pools cannot carry it (the field is hidden then) is left out.
    const input = {
      ...values,
      state: values.state || undefined,
      city: (values.state && city?.code) || undefined,
      zip: (offer.current.zip && values.zip.trim()) || undefined,
      asn: (offer.current.asn && values.asn.trim()) || undefined,
      hard: values.hard || undefined,
    };
    return schemaResolver(input, context, { ...options, names: undefined });
  };

/** Location lists: failures are only logged and the list stays empty (spec section 8). */
function useLogged(error: unknown, what: string) {
  useEffect(() => {
    if (error) console.error(`Failed to load ${what}`, error);
  }, [error, what]);
}

interface Generated {
  proxies: GeneratedProxy[];
  endpoint: { host: string; port: number };
  /** The location string of the usernames (US-CA-LOSANGELES), for the file name. */
  location: string;
  /** The same location by name (United States / California / Los Angeles), for people. */
  locationName: string;
}

export function ProxiesPage() {
  const { t } = useTranslation('proxies');
  const durationLabel = useDurationLabel();
  usePageTitle(t('pageTitle'));
  const user = useSession().data!;
  const [format, setFormat] = useState<ProxyFormat>(DEFAULT_PROXY_FORMAT);
  const [generated, setGenerated] = useState<Generated | null>(null);
  const [notice, setNotice] = useState<{ id: number; count: number } | null>(null);
  const newIp = useNewIp();
  const genStart = useRef(0);
  // Lists can be made for any of the user's enabled proxy accounts; the main account by default.
  const accounts = trpc.proxyAccounts.list.useQuery(undefined, { staleTime: 30_000 });
  const usable = (accounts.data?.accounts ?? []).filter((a) => !a.disabled);
  const [accountId, setAccountId] = useState('');
  const chosen = usable.find((a) => a.proxyUserId === accountId) ?? { proxyUserId: user.proxyUserId, proxyPassword: user.proxyPassword };

  // The listed cities, for matching the typed one on submit (the list is loaded below, by the location chosen here).
  const cityChoices = useRef<readonly City[] | undefined>(undefined);
  const offered = useRef<Offer>({ zip: false, asn: false });
  const cityNotListed = useRef(t('settings.cityNotListed'));
  const form = useSchemaForm(generatorResolver(cityChoices, offered, cityNotListed), {
    country: DEFAULT_COUNTRY,
    state: '',
    city: '',
    zip: '',
    asn: '',
    hard: false,
    durationMinutes: DEFAULT_DURATION_MINUTES,
    count: DEFAULT_PROXY_COUNT,
  });
  // Only the location re-renders the page as it changes: the lists below depend on it. Typing the city or count does not.
  const [country, state, durationMinutes, hard] = useWatch({ control: form.control, name: ['country', 'state', 'durationMinutes', 'hard'] });
  const { errors } = form.formState;

  const countries = trpc.locations.countries.useQuery(undefined, { staleTime: Infinity });
  const selectedCountry = countries.data?.find((c) => c.code === country);
  const states = trpc.locations.states.useQuery({ country }, { enabled: Boolean(country) && (selectedCountry?.states ?? 0) > 0, staleTime: Infinity });
  const selectedState = states.data?.find((s) => s.code === state);
  const citiesQuery = trpc.locations.cities.useQuery({ country, state }, { enabled: Boolean(state) && (selectedState?.cities ?? 0) > 0, staleTime: Infinity });
  const cities = citiesQuery.data;
  useEffect(() => {
    cityChoices.current = cities;
  }, [cities]);
  // ZIP and ASN fields only where an enabled pool serving the country carries them.
  const countryOffer = trpc.locations.country.useQuery({ country }, { enabled: Boolean(selectedCountry), staleTime: 60_000 });
  const offer: Offer = { zip: countryOffer.data?.zip ?? false, asn: countryOffer.data?.asn ?? false };
  offered.current = offer;
  useLogged(countries.error, 'countries');
  // The operator's catalogue may not offer the default country: start from the first one offered.
  useEffect(() => {
    const offered = countries.data;
    if (offered?.length && !offered.some((c) => c.code === country)) form.setValue('country', offered[0]!.code);
  }, [countries.data, country, form]);
  useLogged(states.error, 'states');
  useLogged(citiesQuery.error, 'cities');

  // Generate waits for the endpoint the server reports: a list printed with a guessed one would not work.
  const endpointQuery = trpc.gateway.endpoint.useQuery(undefined, { staleTime: Infinity });
  useLogged(endpointQuery.error, 'proxy endpoint');
  const endpoint = useMemo(() => {
    const e = endpointQuery.data;
    if (!e) return null;
    // No public host configured: the gateway runs beside the page's own host (localhost:3001 in development).
    return { host: e.host ?? (window.location.hostname || e.localHost), port: e.port };
  }, [endpointQuery.data]);

  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(null), PROXY_NOTICE_MS);
    return () => clearTimeout(t);
  }, [notice]);

  // Measures generation + render of the list, for the benchmark and the curious.
  useEffect(() => {
    if (!generated || !genStart.current) return;
    const m = performance.measure('proxies:generate-render', { start: genStart.current, end: performance.now() });
    genStart.current = 0;
    document.documentElement.dataset.lastGenerateMs = m.duration.toFixed(1);
  }, [generated]);

  const onGenerate = submitWith(
    form,
    (v) => {
      if (!endpoint) return;
      genStart.current = performance.now();
      const location = { country: v.country, state: v.state, city: v.city, zip: v.zip, asn: v.asn };
      const proxies = generateProxies({
        proxyUserId: chosen.proxyUserId,
        proxyPassword: chosen.proxyPassword,
        location,
        durationMinutes: v.durationMinutes,
        hard: v.hard,
        count: v.count,
        endpoint,
      });
      const cityName = location.city && cities?.find((c) => c.code === location.city)?.name;
      const names = [selectedCountry?.name ?? location.country, location.state && (selectedState?.name ?? location.state), cityName];
      const narrowed = [v.zip && t('list.zip', { zip: v.zip }), v.asn && `AS${v.asn}`, v.hard && t('list.sameIp')].filter(Boolean).join(', ');
      // The schema's check ends after the click's event, where React would wait for a later task to draw the list: drawn now, as a click's update is.
      flushSync(() => {
        setGenerated({
          proxies,
          endpoint,
          location: locationString(location),
          locationName: names.filter(Boolean).join(' / ') + (narrowed ? ` (${narrowed})` : ''),
        });
        setNotice({ id: Date.now(), count: proxies.length });
      });
    },
    t('invalidInput'),
  );

  /** A new country clears the state and city, a new state the city. */
  const resetBelow = (from: 'state' | 'city') => () => {
    if (from === 'state') form.setValue('state', '');
    form.setValue('city', '');
    form.clearErrors('city');
  };

  // The whole text only when it is copied or downloaded: the list on screen draws the lines in view.
  const listText = () => (generated ? formatProxyList(generated.proxies, format, generated.endpoint) : '');
  const outOfData = user.credits <= 0n;
  const generatedCount = generated?.proxies.length ?? 0;

  return (
    <>
      <PageHeader
        title={t('title')}
        subtitle={t('subtitle')}
        actions={
          <div className="credit-pill" data-testid="credits">
            <span>{t('available')}</span>
            <strong>{fmt.gb(user.credits)}</strong>
          </div>
        }
      />
      {outOfData && (
        <div className="inline-note">
          <Trans t={t} i18nKey="noData" components={{ topup: <Link to="/topup" /> }} />
        </div>
      )}
      {endpointQuery.isError && (
        <Alert kind="error">
          {t('endpointFailed')}{' '}
          <button type="button" className="link-button" onClick={() => void endpointQuery.refetch()}>
            {t('tryAgain')}
          </button>
        </Alert>
      )}
      <Card
        title={t('settings.title')}
        description={
          <span data-testid="endpoint">{endpoint ? t('settings.endpoint', { host: endpoint.host, port: endpoint.port }) : t('settings.loadingEndpoint')}</span>
        }
      >
        <form className="form" onSubmit={onGenerate} noValidate aria-label={t('settings.form')}>
          {usable.length > 1 && (
            <SelectField label={t('settings.account')} name="account" value={chosen.proxyUserId} onChange={(e) => setAccountId(e.target.value)}>
              {usable.map((a) => (
                <option key={a.proxyUserId} value={a.proxyUserId}>
                  {a.kind === 'main' ? t('settings.mainAccount') : a.name} ({a.proxyUserId})
                </option>
              ))}
            </SelectField>
          )}
          <div className="grid-3">
            <SelectField
              label={t('settings.country')}
              // Controlled: its options arrive after it is drawn, and the choice must survive them.
              value={country}
              {...form.register('country', { onChange: resetBelow('state') })}
            >
              {!selectedCountry && <option value={country}>{countries.isPending ? t('settings.loadingCountries') : country}</option>}
              {countries.data?.map((c) => (
                <option key={c.code} value={c.code}>
                  {c.name}
                </option>
              ))}
            </SelectField>
            <SelectField
              label={t('settings.state')}
              value={state}
              disabled={!states.data?.length}
              {...form.register('state', { onChange: resetBelow('city') })}
            >
              <option value="">{states.isFetching ? t('settings.loadingStates') : t('settings.anyState')}</option>
              {states.data?.map((s) => (
                <option key={s.code} value={s.code}>
                  {s.name}
                </option>
              ))}
            </SelectField>
            <FormField
              form={form}
              name="city"
              label={t('settings.city')}
              type="search"
              list="city-options"
              autoComplete="off"
              spellCheck={false}
              disabled={!state || !cities?.length}
              placeholder={
                citiesQuery.isFetching
                  ? t('settings.loadingCities')
                  : cities?.length
                    ? t('settings.searchCities', { n: fmt.number(cities.length) })
                    : t('settings.anyCity')
              }
            />
            <datalist id="city-options" data-testid="city-options">
              {cities?.map((c) => (
                <option key={c.code} value={c.name} />
              ))}
            </datalist>
          </div>
          {(offer.zip || offer.asn) && (
            <div className="grid-3">
              {offer.zip && (
                <FormField
                  form={form}
                  name="zip"
                  label={t('settings.zip')}
                  autoComplete="off"
                  spellCheck={false}
                  placeholder={t('settings.any')}
                  hint={t('settings.zipHint')}
                  transform={(v) => v.toUpperCase()}
                />
              )}
              {offer.asn && (
                <FormField
                  form={form}
                  name="asn"
                  label={t('settings.asn')}
                  inputMode="numeric"
                  autoComplete="off"
                  placeholder={t('settings.any')}
                  hint={t('settings.asnHint')}
                />
              )}
            </div>
          )}
          <div className="grid-3 grid-align-end">
            <SelectField
              label={t('settings.duration')}
              error={errors.durationMinutes?.message}
              // The hint names the shortest and longest of the options offered, so the two cannot disagree.
              hint={t('settings.durationHint', {
                shortest: durationLabel(DURATION_OPTIONS_MINUTES[0]),
                longest: durationLabel(DURATION_OPTIONS_MINUTES.at(-1)!),
              })}
              {...form.register('durationMinutes', { setValueAs: Number, onChange: () => form.clearErrors('durationMinutes') })}
            >
              {GENERATOR_DURATION_OPTIONS.map((m) => (
                <option key={m} value={m}>
                  {durationLabel(m)}
                </option>
              ))}
            </SelectField>
            <NumberField
              form={form}
              name="count"
              label={t('settings.count')}
              whole
              min={1}
              max={MAX_PROXY_COUNT}
              step={1}
              hint={t('settings.countHint', { max: fmt.number(MAX_PROXY_COUNT) })}
            />
            <div className="field field-action">
              <Button type="submit" block disabled={!endpoint} loading={endpointQuery.isPending || form.formState.isSubmitting}>
                {t('settings.generate')}
              </Button>
              {/* The success notice takes this reserved line under the button: it never covers the list. */}
              <p className="field-hint generate-notice">
                {notice ? (
                  <span className="notice-success" role="status" key={notice.id}>
                    <span className="alert-icon" aria-hidden="true">
                      ✓
                    </span>
                    {t('settings.generated', { count: notice.count, n: fmt.number(notice.count) })}
                  </span>
                ) : (
                  '\u00a0'
                )}
              </p>
            </div>
          </div>
          {/* For sticky durations (and while checked, so that its message shows on a rotating one). */}
          {(Number(durationMinutes) > 0 || hard) && (
            <div data-testid="hard-sticky">
              <label className="check">
                <input type="checkbox" {...form.register('hard', { onChange: () => form.clearErrors('hard') })} />
                <span>{t('settings.hard')}</span>
              </label>
              <p className={errors.hard ? 'field-error' : 'field-hint'} role={errors.hard ? 'alert' : undefined}>
                {errors.hard?.message ?? t('settings.hardHint')}
              </p>
            </div>
          )}
          <SessionLimitNote control={form.control} country={country} />
        </form>
      </Card>

      <Card
        className="output-card"
        title={t('list.title')}
        description={
          <span data-testid="generated-count" aria-live="polite">
            {generated ? t('list.generated', { count: generatedCount, n: fmt.number(generatedCount), location: generated.locationName }) : t('list.none')}
          </span>
        }
        actions={
          <>
            <CopyButton text={listText} label={t('list.copyAll')} copiedLabel={t('copied')} disabled={!generated} ariaLabel={t('list.copyAllLabel')} />
            <Button
              variant="secondary"
              disabled={!generated}
              onClick={() => downloadText(`proxies-${generated?.location ?? 'list'}-${generatedCount}.txt`, `${listText()}\n`)}
            >
              {t('list.download')}
            </Button>
          </>
        }
      >
        <SelectField
          label={t('list.format')}
          name="format"
          fieldClassName="format-field"
          value={format}
          onChange={(e) => setFormat(e.target.value as ProxyFormat)}
        >
          {PROXY_FORMATS.map((f) => (
            <option key={f.id} value={f.id}>
              {f.label}
            </option>
          ))}
        </SelectField>
        {isSocksFormat(format) && (
          <div className="inline-note" data-testid="socks-note">
            <Trans t={t} i18nKey="list.socksNote" components={{ b: <strong /> }} />
          </div>
        )}
        <ProxyLines id="proxy-output" label={t('list.label')} list={generated} format={format} placeholder={t('list.placeholder')} newIp={newIp} />
        <NewIpOutcome newIp={newIp} />
        <LineTest firstLine={generated?.proxies[0]?.username ?? null} />
      </Card>
      {generated?.proxies[0] && <ProxySnippets proxy={generated.proxies[0]} endpoint={generated.endpoint} socks={isSocksFormat(format)} />}
    </>
  );
}
