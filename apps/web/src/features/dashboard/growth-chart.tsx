import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import type { DashboardDay } from '@herald/contracts';
import { Box, VisuallyHidden } from '@mantine/core';

const dayLabel = (date: string, options: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric' }) =>
  new Date(`${date}T12:00:00Z`).toLocaleDateString(undefined, { ...options, timeZone: 'UTC' });

/**
 * New people per day as bars (@mantine/charts, as the Metrics page). The chart is a group labelled with a summary;
 * screen readers get every day's figure from the table under it, since the picture's text is only its axes.
 */
export function GrowthChart({ days }: { days: DashboardDay[] }) {
  const data = days.map((day) => ({ day: dayLabel(day.date), people: day.count }));
  const total = days.reduce((sum, day) => sum + day.count, 0);
  const most = Math.max(0, ...days.map((day) => day.count));
  const first = days[0];
  const last = days.at(-1);
  // A top of the scale divisible by 4 keeps the five labels (0 to top) whole numbers.
  const top = Math.max(4, Math.ceil(most / 4) * 4);
  const summary = `New people per day: ${total.toLocaleString()} from ${first ? dayLabel(first.date) : ''} to ${last ? dayLabel(last.date) : ''}, at most ${most.toLocaleString()} in a day`;
  return (
    <Box>
      {/* The chart takes the keyboard (arrow keys move its tooltip); its figures are also in the table below it. */}
      <div role="group" aria-label={summary}>
        <BarChart
          h={180}
          data={data}
          dataKey="day"
          series={[{ name: 'people', label: 'New people', color: 'indigo.6' }]}
          tickLine="none"
          gridAxis="x"
          barProps={{ radius: [3, 3, 0, 0] }}
          gridProps={{ yAxisId: 'left' }}
          valueFormatter={(value) => value.toLocaleString()}
          yAxisProps={{
            width: 40,
            domain: [0, top],
            ticks: [0, top / 4, top / 2, (top * 3) / 4, top],
            interval: 0,
          }}
          xAxisProps={{ minTickGap: 24 }}
        />
      </div>
      <VisuallyHidden>
        <table>
          <caption>New people per day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">New people</th>
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.date}>
                <th scope="row">{dayLabel(day.date, { year: 'numeric', month: 'long', day: 'numeric' })}</th>
                <td>{day.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </VisuallyHidden>
    </Box>
  );
}
