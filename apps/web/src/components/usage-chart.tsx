/** A bar chart of usage points (download and upload stacked), in MB, with the total as data. */
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { UsageGranularity } from '@proxyhub/core';
import { formatMb, MiB } from '../lib/bytes';

function bucketLabel(iso: string, granularity: UsageGranularity): string {
  const d = new Date(iso);
  return granularity === 'hour'
    ? d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' })
    : d.toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
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
  const points = raw.map((p) => ({
    label: bucketLabel(p.start, granularity),
    start: p.start,
    // Charted in MB: numbers the axis can show; the tooltip formats them.
    down: Number(BigInt(p.bytesDown)) / MiB,
    up: Number(BigInt(p.bytesUp)) / MiB,
  }));
  return (
    <div className="usage-chart" data-testid={testId} data-total-bytes={String(totalBytes)}>
      <ResponsiveContainer width="100%" height={260}>
        <BarChart data={points} margin={{ top: 16, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="label" tick={{ fontSize: 12 }} interval="preserveStartEnd" minTickGap={16} />
          <YAxis tick={{ fontSize: 12 }} width={64} tickFormatter={(v: number) => formatMb(v)} />
          <Tooltip formatter={(v) => formatMb(Number(v))} />
          <Legend />
          <Bar dataKey="down" name="Download" stackId="b" fill="#4f46e5" isAnimationActive={false} />
          <Bar dataKey="up" name="Upload" stackId="b" fill="#a5b4fc" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
