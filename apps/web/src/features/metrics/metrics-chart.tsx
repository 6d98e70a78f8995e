import '@mantine/charts/styles.css';
import { AreaChart } from '@mantine/charts';
import type { EmailStatsBucket, MetricsBucket } from '@herald/contracts';
import { Paper, Text, VisuallyHidden } from '@mantine/core';

/** A bucket's label in the time zone the figures were cut in: "14:00" for hours, "Mar 4" for days and weeks. */
export function bucketLabel(start: string, bucket: MetricsBucket, timeZone: string, long = false): string {
  const date = new Date(start);
  if (bucket === 'hour') {
    return date.toLocaleString(undefined, {
      timeZone,
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      ...(long ? { weekday: 'short' } : {}),
    });
  }
  const day = date.toLocaleDateString(undefined, {
    timeZone,
    month: 'short',
    day: 'numeric',
    ...(long ? { year: 'numeric' } : {}),
  });
  return bucket === 'week' && long ? `Week of ${day}` : day;
}

const series = [
  { name: 'delivered', label: 'Delivered', color: 'blue.6' },
  { name: 'uniqueOpens', label: 'Unique opens', color: 'teal.6' },
  { name: 'uniqueClicks', label: 'Unique clicks', color: 'violet.6' },
];

/**
 * Delivered, unique opens and unique clicks over the period, one point a bucket. Screen readers get the same
 * figures as a table, since the picture's text is only its axes.
 */
export function MetricsChart({
  buckets,
  bucket,
  timeZone,
}: {
  buckets: EmailStatsBucket[];
  bucket: MetricsBucket;
  timeZone: string;
}) {
  const data = buckets.map((b) => ({
    label: bucketLabel(b.start, bucket, timeZone),
    delivered: b.delivered,
    uniqueOpens: b.uniqueOpens,
    uniqueClicks: b.uniqueClicks,
  }));
  return (
    <Paper withBorder radius="md" p="md">
      <Text fw={600} mb="sm">
        Over time{' '}
        <Text span c="dimmed" size="sm">
          (by {bucket})
        </Text>
      </Text>
      {/* The chart takes the keyboard (arrow keys move its tooltip); its figures are also in the table below it. */}
      <div role="group" aria-label={`Chart of delivered, unique opens and unique clicks by ${bucket}`}>
        <AreaChart
          h={280}
          data={data}
          dataKey="label"
          series={series}
          curveType="monotone"
          withDots={data.length <= 40}
          withLegend
          legendProps={{ verticalAlign: 'bottom', height: 40 }}
          tickLine="y"
          gridAxis="xy"
          valueFormatter={(value) => value.toLocaleString()}
          yAxisProps={{ allowDecimals: false }}
          xAxisProps={{ minTickGap: 24 }}
        />
      </div>
      <VisuallyHidden>
        <table>
          <caption>Delivered, unique opens and unique clicks by {bucket}</caption>
          <thead>
            <tr>
              <th scope="col">{bucket}</th>
              {series.map((s) => (
                <th scope="col" key={s.name}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {buckets
              .filter((b) => b.sent || b.delivered || b.uniqueOpens || b.uniqueClicks)
              .map((b) => (
                <tr key={b.start}>
                  <th scope="row">{bucketLabel(b.start, bucket, timeZone, true)}</th>
                  <td>{b.delivered}</td>
                  <td>{b.uniqueOpens}</td>
                  <td>{b.uniqueClicks}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </VisuallyHidden>
    </Paper>
  );
}
