import type { DashboardDay } from '@herald/contracts';
import { Box, Group, Text, VisuallyHidden } from '@mantine/core';

const dayLabel = (date: string, options: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric' }) =>
  new Date(`${date}T12:00:00Z`).toLocaleDateString(undefined, { ...options, timeZone: 'UTC' });

const height = 120;
const gap = 2;

/**
 * New people per day as bars drawn in SVG (no chart library needed for one series). The picture is one image with
 * a summary for screen readers, and the figures are also in a hidden table; each bar has a title as its tooltip.
 */
export function GrowthChart({ days }: { days: DashboardDay[] }) {
  const most = Math.max(1, ...days.map((day) => day.count));
  const width = days.length * 10;
  const total = days.reduce((sum, day) => sum + day.count, 0);
  const first = days[0];
  const last = days.at(-1);
  const middle = days[Math.floor(days.length / 2)];
  const summary = `${total.toLocaleString()} new people from ${first ? dayLabel(first.date) : ''} to ${last ? dayLabel(last.date) : ''}; at most ${most.toLocaleString()} in a day.`;
  return (
    <Box>
      <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" width="100%" height={height} role="img" aria-label={summary} style={{ display: 'block' }}>
        <line x1={0} x2={width} y1={height - 0.5} y2={height - 0.5} stroke="var(--mantine-color-gray-3)" strokeWidth={1} vectorEffect="non-scaling-stroke" />
        {days.map((day, index) => {
          const barHeight = day.count > 0 ? Math.max(3, (day.count / most) * (height - 8)) : 0;
          return (
            <rect key={day.date} x={index * 10 + gap / 2} y={height - barHeight} width={10 - gap} height={barHeight} rx={1.5} fill="var(--mantine-color-indigo-6)">
              <title>{`${dayLabel(day.date, { weekday: 'short', month: 'short', day: 'numeric' })}: ${day.count.toLocaleString()} new`}</title>
            </rect>
          );
        })}
      </svg>
      <Group justify="space-between" mt={6} aria-hidden>
        {[first, middle, last].map((day) => (
          <Text key={day?.date ?? 'none'} size="xs" c="dimmed">
            {day ? dayLabel(day.date) : ''}
          </Text>
        ))}
      </Group>
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
                <td>{dayLabel(day.date, { year: 'numeric', month: 'long', day: 'numeric' })}</td>
                <td>{day.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </VisuallyHidden>
    </Box>
  );
}
