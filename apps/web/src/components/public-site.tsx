/**
 * The public site's frame: the header and footer of the landing page, the sign-in screens and the
 * public pages (pricing, locations, status, the operator's legal pages), and the data hook those
 * pages load with (plain fetches: no tRPC on signed-out pages).
 */
import { useEffect, useState, type ComponentProps, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, NavLink } from 'react-router-dom';
import { fmt } from '../lib/format';
import { usePageTitle } from '../lib/page-title';
import { usePublicPricing, useSeller } from '../lib/public-calls';
import { LanguagePicker } from './language-picker';
import { Alert, BigIcon, Brand, LinkButton, Spinner } from './ui';

/** The public pages a visitor can reach from anywhere signed out; /docs is the server's API reference. */
const SITE_LINKS = [
  { to: '/pricing', label: 'nav.pricing' },
  { to: '/locations', label: 'nav.locations' },
  { to: '/status', label: 'nav.status' },
] as const;

const LEGAL_LINKS = [
  { to: '/terms', label: 'nav.terms' },
  { to: '/privacy', label: 'nav.privacy' },
  { to: '/acceptable-use', label: 'nav.acceptableUse' },
  { to: '/refunds', label: 'nav.refunds' },
] as const;

/** The site's links; `/docs` is served by the server (not a route of this app): a full page load. */
function SiteNav({ label, className }: { label: string; className: string }) {
  const { t } = useTranslation('public');
  return (
    <nav aria-label={label} className={className}>
      {SITE_LINKS.map((l) => (
        <NavLink key={l.to} to={l.to} className="site-link">
          {t(l.label)}
        </NavLink>
      ))}
      <a href="/docs" className="site-link">
        {t('nav.apiDocs')}
      </a>
    </nav>
  );
}

/** `account`: the Sign In and Create Account buttons (not on the sign-in screens themselves). */
export function SiteHeader({ account = true }: { account?: boolean }) {
  const { t } = useTranslation('public');
  return (
    <header className="site-header">
      <Brand />
      <SiteNav label={t('nav.site')} className="site-nav" />
      <LanguagePicker className="site-language" />
      {account && (
        <div className="site-header-actions">
          <LinkButton to="/login" variant="secondary">
            {t('signIn')}
          </LinkButton>
          <LinkButton to="/login?mode=register" className="site-create">
            {t('createAccount')}
          </LinkButton>
        </div>
      )}
    </header>
  );
}

export function SiteFooter() {
  const { t } = useTranslation('public');
  const seller = useSeller();
  return (
    <footer className="site-footer">
      <SiteNav label={t('nav.footer')} className="site-footer-nav" />
      <nav aria-label={t('nav.legal')} className="site-footer-nav">
        {LEGAL_LINKS.map((l) => (
          <Link key={l.to} to={l.to} className="site-link">
            {t(l.label)}
          </Link>
        ))}
      </nav>
      {seller && (
        <p className="site-footer-note" data-testid="footer-seller">
          © {seller.companyName} · {t('footerSupport')} <a href={`mailto:${seller.supportEmail}`}>{seller.supportEmail}</a>
        </p>
      )}
      <p className="site-footer-note">{t('footerTagline')}</p>
    </footer>
  );
}

/** The sign-in screens: the site's header (without the account buttons: this is where they lead) and footer around one card. */
export function AuthLayout({ children, wide }: { children: ReactNode; wide?: boolean }) {
  const { t } = useTranslation('public');
  const pricing = usePublicPricing();
  return (
    <div className="auth-page">
      <SiteHeader account={false} />
      <main id="main" tabIndex={-1} className={`auth-card${wide ? ' auth-card-wide' : ''}`}>
        {children}
      </main>
      <p className="auth-footer">{t('authFooter', { price: fmt.cents(pricing.pricePerGbCents) })}</p>
      <SiteFooter />
    </div>
  );
}

/** A sign-in screen that tells rather than asks: a big icon, a title, the line under it, then `children`. */
export function AuthNotice({
  kind,
  icon,
  title,
  subtitle,
  children,
}: ComponentProps<typeof BigIcon> & { title: string; subtitle: ReactNode; children: ReactNode }) {
  return (
    <AuthLayout>
      <div className="center-stack">
        <BigIcon kind={kind} icon={icon} />
        <h1 className="auth-title">{title}</h1>
        <p className="auth-subtitle">{subtitle}</p>
        {children}
      </div>
    </AuthLayout>
  );
}

/** A public page: header, the page's content as the main landmark, footer. */
/** `operatorTitle`: the title is the operator's own words (a legal page), kept as they wrote it. */
export function PublicPage({ title, lead, children, operatorTitle }: { title: string; lead?: ReactNode; children: ReactNode; operatorTitle?: boolean }) {
  usePageTitle(title);
  return (
    <div className="landing">
      <SiteHeader />
      <main id="main" tabIndex={-1} className="public-main">
        <h1 className="public-title" {...(operatorTitle ? { 'data-operator-content': true, lang: 'en' } : {})}>
          {title}
        </h1>
        {lead && <p className="public-lead">{lead}</p>}
        {children}
      </main>
      <SiteFooter />
    </div>
  );
}

/** "Skip to content": the first thing a keyboard reaches on every screen; it moves focus to the page's main landmark. */
export function SkipLink() {
  // Drawn above the routes' Suspense: it shows once the common words have loaded, never suspends.
  const { t, ready } = useTranslation('common', { useSuspense: false });
  if (!ready) return null;
  return (
    <a
      href="#main"
      className="skip-link"
      onClick={(e) => {
        const main = document.getElementById('main');
        if (!main) return;
        e.preventDefault();
        if (!main.hasAttribute('tabindex')) main.setAttribute('tabindex', '-1');
        main.focus();
      }}
    >
      {t('skipToContent')}
    </a>
  );
}

type Loaded<T> = { state: 'loading' } | { state: 'ready'; data: T } | { state: 'error'; message: string };

/** One public GET made as the page opens. */
export function usePublicData<T>(load: () => Promise<T>, key = ''): Loaded<T> {
  const { t } = useTranslation('public');
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  useEffect(() => {
    let live = true;
    setLoaded({ state: 'loading' });
    load().then(
      (data) => live && setLoaded({ state: 'ready', data }),
      (err: unknown) => live && setLoaded({ state: 'error', message: err instanceof Error && err.message ? err.message : t('loadFailed') }),
    );
    return () => {
      live = false;
    };
    // `load` is a new closure each render; `key` names what it loads.
  }, [key]);
  return loaded;
}

/** A public page drawn from one public call: its title and lead, the call's loading and failure states, then the page. */
export function PublicDataPage<T>({
  title,
  lead,
  load,
  children,
}: {
  title: string;
  lead?: ReactNode;
  load: () => Promise<T>;
  children: (data: T) => ReactNode;
}) {
  const loaded = usePublicData(load);
  return (
    <PublicPage title={title} lead={lead}>
      <PublicData loaded={loaded}>{children}</PublicData>
    </PublicPage>
  );
}

/** The loading and failure states of a public page's data; the page draws the rest. */
export function PublicData<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ReactNode }) {
  const { t } = useTranslation();
  if (loaded.state === 'loading') {
    return (
      <p className="public-loading" role="status">
        <Spinner /> {t('loading')}
      </p>
    );
  }
  if (loaded.state === 'error') return <Alert kind="error">{loaded.message}</Alert>;
  return <>{children(loaded.data)}</>;
}
