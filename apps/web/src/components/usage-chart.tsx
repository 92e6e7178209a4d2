/** A bar chart of usage points (download and upload stacked), in the unit the largest bar needs, with the total as data. */
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useTranslation } from 'react-i18next';
import type { UsageGranularity } from '@proxyhub/core';
import { chartUnit, formatInUnit } from '../lib/bytes';
import { fmt } from '../lib/format';

/** A bar's hour or day (UTC, as the buckets are), in the language on show. */
function bucketLabel(iso: string, granularity: UsageGranularity): string {
  return granularity === 'hour'
    ? fmt.time(iso, { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' })
    : fmt.date(iso, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

export function UsageChart({
  points: raw,
  granularity,
  totalBytes,
  testId = 'usage-chart',
}: {
  points: { start: string; bytesUp: string; bytesDown: string }[];
  granularity: UsageGranularity;
  totalBytes: bigint;
  testId?: string;
}) {
  // Not suspending: the admin panel draws this chart once its data arrives, and the panel must not
  // go back to loading for the legend's words; the bars are drawn once the catalogue is there.
  const { t, ready } = useTranslation('dashboard', { useSuspense: false });
  // One unit for the whole chart, chosen by the tallest bar: small traffic in KB or bytes, so the
  // axis ticks are distinct numbers rather than "0 MB" five times.
  const unit = chartUnit(Math.max(0, ...raw.map((p) => Number(BigInt(p.bytesDown) + BigInt(p.bytesUp)))));
  const points = raw.map((p) => ({
    label: bucketLabel(p.start, granularity),
    start: p.start,
    down: Number(BigInt(p.bytesDown)) / unit.size,
    up: Number(BigInt(p.bytesUp)) / unit.size,
  }));
  return (
    <div className="usage-chart" data-testid={testId} data-total-bytes={String(totalBytes)} data-unit={unit.name}>
      {ready && (
        <ResponsiveContainer width="100%" height={260}>
          <BarChart data={points} margin={{ top: 16, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="label" tick={{ fontSize: 12 }} interval="preserveStartEnd" minTickGap={16} />
            <YAxis
              tick={{ fontSize: 12 }}
              width={72}
              allowDecimals={unit.name !== 'bytes'}
              domain={[0, (max: number) => Math.max(max, 1)]}
              tickFormatter={(v: number) => formatInUnit(v, unit.name)}
            />
            <Tooltip formatter={(v) => formatInUnit(Number(v), unit.name)} />
            <Legend />
            <Bar dataKey="down" name={t('chart.download')} stackId="b" fill="#4f46e5" isAnimationActive={false} />
            <Bar dataKey="up" name={t('chart.upload')} stackId="b" fill="#a5b4fc" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      )}
    </div>
  );
}
