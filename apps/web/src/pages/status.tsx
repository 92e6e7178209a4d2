import { useSearchParams } from 'react-router-dom';
import { PublicDataPage } from '../components/public-site';
import { QualityBoardSection, StatusLinkAction, SubscribeForm } from '../components/quality-board';
import { qualityBoard, serviceStatus, type ServiceStatus } from '../lib/public-calls';

const loadStatus = () => Promise.all([serviceStatus(), qualityBoard()]).then(([s, q]) => ({ ...s, quality: q.countries }));

const HEADLINE: Record<ServiceStatus['status'], string> = {
  operational: 'All systems operational',
  degraded: 'Degraded: some gateways are down',
  down: 'Proxy service down',
};

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
  const [params] = useSearchParams();
  const confirm = params.get('confirm');
  const unsubscribe = params.get('unsubscribe');
  return (
    <PublicDataPage title="Status" lead="Whether the proxy gateways take connections now, and how often they did over the last 90 days." load={loadStatus}>
      {(s) => (
        <div className="public-stack">
          {confirm && <StatusLinkAction kind="confirm" token={confirm} />}
          {unsubscribe && <StatusLinkAction kind="unsubscribe" token={unsubscribe} />}
          <section className={`card public-card status-now status-${s.status}`} aria-label="Current status" data-testid="status-now" data-status={s.status}>
            <span className="status-dot" aria-hidden="true" />
            <div>
              <h2>{HEADLINE[s.status]}</h2>
              <p className="muted">
                {s.gatewaysUp} of {s.gatewaysTotal} {s.gatewaysTotal === 1 ? 'gateway' : 'gateways'} up
              </p>
            </div>
            <p className="status-uptime" data-testid="uptime-30d">
              {s.uptime30d === null ? 'Uptime: not enough data yet' : `${s.uptime30d.toFixed(2)}% uptime, last 30 days`}
            </p>
          </section>
          <section className="card public-card" aria-label="Daily uptime">
            <h2>Uptime, last 90 days</h2>
            <ol className="uptime-bar" data-testid="uptime-bar">
              {s.days.map((d) => {
                const text = `${d.date}: ${d.uptime === null ? 'no data' : `${d.uptime.toFixed(2)}% uptime`}`;
                return <li key={d.date} className={`uptime-day uptime-${barLevel(d.uptime)}`} title={text} aria-label={text} />;
              })}
            </ol>
            <p className="uptime-scale muted small">
              <span>90 days ago</span>
              <span>Today</span>
            </p>
            <p className="muted small">
              A minute counts as up when at least one gateway reported in it. Operational: every gateway up; degraded: some down; down: none up.
            </p>
          </section>
          <QualityBoardSection countries={s.quality} />
          <SubscribeForm />
        </div>
      )}
    </PublicDataPage>
  );
}
