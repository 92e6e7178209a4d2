import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { PublicDataPage } from '../components/public-site';
import { QualityBoardSection, StatusLinkAction, SubscribeForm } from '../components/quality-board';
import { fmt } from '../lib/format';
import { qualityBoard, serviceStatus } from '../lib/public-calls';

const loadStatus = () => Promise.all([serviceStatus(), qualityBoard()]).then(([s, q]) => ({ ...s, quality: q.countries }));

/** An uptime percentage with two decimals ("99.95%", "99,95 %"). */
const uptimePct = (pct: number) => fmt.number(pct / 100, { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A day's bar colour: green from 99.9 %, amber from 95 %, red below; grey before counting began. */
function barLevel(uptime: number | null): string {
  if (uptime === null) return 'none';
  return uptime >= 99.9 ? 'good' : uptime >= 95 ? 'fair' : 'bad';
}

/**
 * /status: the proxy gateways now (GET /api/status) and 90 days of daily uptime; the measured
 * quality per country (GET /api/status/quality) and its incident mails. A mail's link opens this
 * page with `?confirm=` or `?unsubscribe=` and its token.
 */
export function StatusPage() {
  const { t } = useTranslation('public');
  const [params] = useSearchParams();
  const confirm = params.get('confirm');
  const unsubscribe = params.get('unsubscribe');
  return (
    <PublicDataPage title={t('status.title')} lead={t('status.lead')} load={loadStatus}>
      {(s) => (
        <div className="public-stack">
          {confirm && <StatusLinkAction kind="confirm" token={confirm} />}
          {unsubscribe && <StatusLinkAction kind="unsubscribe" token={unsubscribe} />}
          <section
            className={`card public-card status-now status-${s.status}`}
            aria-label={t('status.current')}
            data-testid="status-now"
            data-status={s.status}
          >
            <span className="status-dot" aria-hidden="true" />
            <div>
              <h2>{t(`status.${s.status}`)}</h2>
              <p className="muted">{t('status.gatewaysUp', { up: s.gatewaysUp, count: s.gatewaysTotal })}</p>
            </div>
            <p className="status-uptime" data-testid="uptime-30d">
              {s.uptime30d === null ? t('status.noUptime') : t('status.uptime30d', { pct: uptimePct(s.uptime30d) })}
            </p>
          </section>
          <section className="card public-card" aria-label={t('status.daily')}>
            <h2>{t('status.last90')}</h2>
            <ol className="uptime-bar" data-testid="uptime-bar">
              {s.days.map((d) => {
                const text = d.uptime === null ? t('status.dayNoData', { date: d.date }) : t('status.dayUptime', { date: d.date, pct: uptimePct(d.uptime) });
                return <li key={d.date} className={`uptime-day uptime-${barLevel(d.uptime)}`} title={text} aria-label={text} />;
              })}
            </ol>
            <p className="uptime-scale muted small">
              <span>{t('status.daysAgo')}</span>
              <span>{t('status.today')}</span>
            </p>
            <p className="muted small">{t('status.explain')}</p>
          </section>
          <QualityBoardSection countries={s.quality} />
          <SubscribeForm />
        </div>
      )}
    </PublicDataPage>
  );
}
