import { useEffect, useMemo, useRef, useState } from 'react';
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
  formatGb,
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
import { durationLabel } from '../lib/durations';
import { FormField, NumberField, submitWith, useSchemaForm } from '../lib/form';
import { useSession } from '../session';
import { trpc } from '../trpc';
import { SessionLimitNote } from '../components/session-limit-note';
import { usePageTitle } from '../lib/page-title';

/** The hint names the shortest and longest of the options offered, so the two cannot disagree. */
const DURATION_HINT = `Sticky session length: ${durationLabel(DURATION_OPTIONS_MINUTES[0])} to ${durationLabel(DURATION_OPTIONS_MINUTES.at(-1)!)}.`;
const CITY_NOT_LISTED = 'Choose a city from the list, or leave it empty for any city';

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
  (cities: { readonly current: readonly City[] | undefined }, offer: { readonly current: Offer }): Resolver<Values, unknown, GenerateProxiesForm> =>
  async (values, context, options): Promise<ResolverResult<Values, GenerateProxiesForm>> => {
    const city = cityOf(cities.current, values.city);
    if (city === null) return { values: {}, errors: { city: { type: 'validate', message: CITY_NOT_LISTED } } };
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
  usePageTitle('Proxies');
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
  const form = useSchemaForm(generatorResolver(cityChoices, offered), {
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
      const narrowed = [v.zip && `ZIP ${v.zip}`, v.asn && `AS${v.asn}`, v.hard && 'same IP or fail'].filter(Boolean).join(', ');
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
    'Invalid input',
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
        title="Generate Proxies"
        subtitle="Pick a location and a session duration, then generate as many credentials as you need."
        actions={
          <div className="credit-pill" data-testid="credits">
            <span>Available</span>
            <strong>{formatGb(user.credits)} GB</strong>
          </div>
        }
      />
      {outOfData && (
        <div className="inline-note">
          You have no data left: proxies will not connect until you <Link to="/topup">top up</Link>.
        </div>
      )}
      {endpointQuery.isError && (
        <Alert kind="error">
          The proxy endpoint could not be loaded, so no list can be made yet.{' '}
          <button type="button" className="link-button" onClick={() => void endpointQuery.refetch()}>
            Try again
          </button>
        </Alert>
      )}
      <Card
        title="Proxy Settings"
        description={
          <span data-testid="endpoint">
            {endpoint ? `Endpoint ${endpoint.host}:${endpoint.port} · HTTP, HTTPS and SOCKS5 on one port` : 'Loading the proxy endpoint...'}
          </span>
        }
      >
        <form className="form" onSubmit={onGenerate} noValidate aria-label="Generate proxies">
          {usable.length > 1 && (
            <SelectField label="Proxy account" name="account" value={chosen.proxyUserId} onChange={(e) => setAccountId(e.target.value)}>
              {usable.map((a) => (
                <option key={a.proxyUserId} value={a.proxyUserId}>
                  {a.kind === 'main' ? 'Main account' : a.name} ({a.proxyUserId})
                </option>
              ))}
            </SelectField>
          )}
          <div className="grid-3">
            <SelectField
              label="Country"
              // Controlled: its options arrive after it is drawn, and the choice must survive them.
              value={country}
              {...form.register('country', { onChange: resetBelow('state') })}
            >
              {!selectedCountry && <option value={country}>{countries.isPending ? 'Loading countries...' : country}</option>}
              {countries.data?.map((c) => (
                <option key={c.code} value={c.code}>
                  {c.name}
                </option>
              ))}
            </SelectField>
            <SelectField label="State" value={state} disabled={!states.data?.length} {...form.register('state', { onChange: resetBelow('city') })}>
              <option value="">{states.isFetching ? 'Loading states...' : 'Any state'}</option>
              {states.data?.map((s) => (
                <option key={s.code} value={s.code}>
                  {s.name}
                </option>
              ))}
            </SelectField>
            <FormField
              form={form}
              name="city"
              label="City"
              type="search"
              list="city-options"
              autoComplete="off"
              spellCheck={false}
              disabled={!state || !cities?.length}
              placeholder={
                citiesQuery.isFetching
                  ? 'Loading cities...'
                  : cities?.length
                    ? `Any city · type to search ${cities.length.toLocaleString('en-US')}`
                    : 'Any city'
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
                  label="ZIP / postal code"
                  autoComplete="off"
                  spellCheck={false}
                  placeholder="Any"
                  hint="Optional: 3 to 10 letters and digits"
                  transform={(v) => v.toUpperCase()}
                />
              )}
              {offer.asn && (
                <FormField
                  form={form}
                  name="asn"
                  label="ASN"
                  inputMode="numeric"
                  autoComplete="off"
                  placeholder="Any"
                  hint="Optional: the network's number, e.g. 7922"
                />
              )}
            </div>
          )}
          <div className="grid-3 grid-align-end">
            <SelectField
              label="Session Duration"
              error={errors.durationMinutes?.message}
              hint={DURATION_HINT}
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
              label="Number of Proxies"
              whole
              min={1}
              max={MAX_PROXY_COUNT}
              step={1}
              hint={`1 to ${MAX_PROXY_COUNT.toLocaleString('en-US')}`}
            />
            <div className="field field-action">
              <Button type="submit" block disabled={!endpoint} loading={endpointQuery.isPending || form.formState.isSubmitting}>
                Generate Proxies
              </Button>
              {/* The success notice takes this reserved line under the button: it never covers the list. */}
              <p className="field-hint generate-notice">
                {notice ? (
                  <span className="notice-success" role="status" key={notice.id}>
                    <span className="alert-icon" aria-hidden="true">
                      ✓
                    </span>
                    Successfully generated {notice.count.toLocaleString('en-US')} {notice.count === 1 ? 'proxy' : 'proxies'}!
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
                <span>Keep the same IP or fail</span>
              </label>
              <p className={errors.hard ? 'field-error' : 'field-hint'} role={errors.hard ? 'alert' : undefined}>
                {errors.hard?.message ?? 'The provider keeps the exit for the whole session or the connection fails; it never switches to another IP.'}
              </p>
            </div>
          )}
          <SessionLimitNote control={form.control} country={country} />
        </form>
      </Card>

      <Card
        className="output-card"
        title="Proxy List"
        description={
          <span data-testid="generated-count" aria-live="polite">
            {generated
              ? `${generatedCount.toLocaleString('en-US')} ${generatedCount === 1 ? 'proxy' : 'proxies'} generated · ${generated.locationName}`
              : 'No proxies generated yet'}
          </span>
        }
        actions={
          <>
            <CopyButton text={listText} label="Copy All" disabled={!generated} ariaLabel="Copy all proxies" />
            <Button
              variant="secondary"
              disabled={!generated}
              onClick={() => downloadText(`proxies-${generated?.location ?? 'list'}-${generatedCount}.txt`, `${listText()}\n`)}
            >
              Download .txt
            </Button>
          </>
        }
      >
        <SelectField label="Format" name="format" fieldClassName="format-field" value={format} onChange={(e) => setFormat(e.target.value as ProxyFormat)}>
          {PROXY_FORMATS.map((f) => (
            <option key={f.id} value={f.id}>
              {f.label}
            </option>
          ))}
        </SelectField>
        {isSocksFormat(format) && (
          <div className="inline-note" data-testid="socks-note">
            Browsers cannot send a SOCKS5 username and password. In a browser use the <strong>http://</strong> format instead, or password-less access from
            allow-listed IP addresses where your account has them. curl and most proxy tools take these lines as they are.
          </div>
        )}
        <ProxyLines
          id="proxy-output"
          label="Generated proxies"
          list={generated}
          format={format}
          placeholder="Your proxies will appear here, one per line."
          newIp={newIp}
        />
        <NewIpOutcome newIp={newIp} />
        <LineTest firstLine={generated?.proxies[0]?.username ?? null} />
      </Card>
      {generated?.proxies[0] && <ProxySnippets proxy={generated.proxies[0]} endpoint={generated.endpoint} socks={isSocksFormat(format)} />}
    </>
  );
}
