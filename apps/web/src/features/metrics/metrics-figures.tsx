import type { EmailFigures, EmailMetricsStats, LinkClicks } from '@herald/contracts';
import { Anchor, Paper, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { TableCard } from '../../ui/table-card.tsx';

export const percent = (fraction: number) =>
  `${(fraction * 100).toLocaleString(undefined, { maximumFractionDigits: 1 })}%`;
const count = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** The period's key numbers, each in a card with what it counts. */
export function FigureCards({ totals }: { totals: EmailFigures }) {
  const cards: { label: string; value: string; note: string }[] = [
    {
      label: 'Sent',
      value: totals.sent.toLocaleString(),
      note: `${totals.delivered.toLocaleString()} delivered`,
    },
    {
      label: 'Open rate',
      value: percent(totals.openRate),
      note: `${count(totals.uniqueOpens, 'person', 'people')} opened (${count(totals.opened, 'open', 'opens')})`,
    },
    {
      label: 'Click rate',
      value: percent(totals.clickRate),
      note: `${count(totals.uniqueClicks, 'person', 'people')} clicked (${count(totals.clicked, 'click', 'clicks')})`,
    },
    {
      label: 'Unsubscribed',
      value: totals.unsubscribed.toLocaleString(),
      note: `${count(totals.bounced, 'bounce', 'bounces')}, ${count(totals.complained, 'complaint', 'complaints')}`,
    },
  ];
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="md">
      {cards.map((card) => (
        <Paper key={card.label} withBorder radius="md" p="md">
          <Stack gap={2}>
            <Text size="sm" c="dimmed" fw={500}>
              {card.label}
            </Text>
            <Text fz={28} fw={700} lh={1.2}>
              {card.value}
            </Text>
            <Text size="xs" c="dimmed">
              {card.note}
            </Text>
          </Stack>
        </Paper>
      ))}
    </SimpleGrid>
  );
}

/** Every figure of each email in the period. */
export function EmailFiguresTable({ emails }: { emails: NonNullable<EmailMetricsStats['emails']> }) {
  return (
    <TableCard minWidth={900} aria-label="Figures by email">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Email</Table.Th>
          <Table.Th ta="right">Sent</Table.Th>
          <Table.Th ta="right">Delivered</Table.Th>
          <Table.Th ta="right">Unique opens</Table.Th>
          <Table.Th ta="right">Open rate</Table.Th>
          <Table.Th ta="right">Unique clicks</Table.Th>
          <Table.Th ta="right">Click rate</Table.Th>
          <Table.Th ta="right">Unsubscribed</Table.Th>
          <Table.Th ta="right">Bounced</Table.Th>
          <Table.Th ta="right">Complaints</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {emails.map((row) => (
          <Table.Tr key={row.emailId}>
            <Table.Td>
              {row.emailId > 0 ? (
                <Anchor component={Link} to={`/emails/${row.emailId}`} size="sm">
                  {row.name ?? `Email ${row.emailId}`}
                </Anchor>
              ) : (
                <Text size="sm" c="dimmed">
                  No email named
                </Text>
              )}
            </Table.Td>
            <Table.Td ta="right">{row.sent.toLocaleString()}</Table.Td>
            <Table.Td ta="right">{row.delivered.toLocaleString()}</Table.Td>
            <Table.Td ta="right">{row.uniqueOpens.toLocaleString()}</Table.Td>
            <Table.Td ta="right">{percent(row.openRate)}</Table.Td>
            <Table.Td ta="right">{row.uniqueClicks.toLocaleString()}</Table.Td>
            <Table.Td ta="right">{percent(row.clickRate)}</Table.Td>
            <Table.Td ta="right">{row.unsubscribed.toLocaleString()}</Table.Td>
            <Table.Td ta="right">{row.bounced.toLocaleString()}</Table.Td>
            <Table.Td ta="right">{row.complained.toLocaleString()}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </TableCard>
  );
}

/** The most clicked links of the period. */
export function LinkClicksTable({ clicks }: { clicks: LinkClicks[] }) {
  return (
    <TableCard aria-label="Clicks by link">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Link</Table.Th>
          <Table.Th ta="right" w={120}>
            Clicks
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {clicks.map((row) => (
          <Table.Tr key={row.link}>
            <Table.Td style={{ wordBreak: 'break-all' }}>
              <Text size="sm">{row.link}</Text>
            </Table.Td>
            <Table.Td ta="right">{row.clicks.toLocaleString()}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </TableCard>
  );
}
