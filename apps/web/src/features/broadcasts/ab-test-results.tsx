import { type AbTest, type AbTestResults, type EmailSummary } from '@herald/contracts';
import { Alert, Badge, Group, Table, Text } from '@mantine/core';
import { IconClock, IconTrophy } from '@tabler/icons-react';
import { formatDateTime } from '../../lib/format.ts';

interface AbTestResultsTableProps {
  test: AbTest;
  results: AbTestResults | null;
  emails: EmailSummary[] | undefined;
  /** The broadcast's own email: what a variant without one sends. */
  emailId: number | null;
}

const rate = (value: number, of: number) => (of > 0 ? `${((value / of) * 100).toFixed(1)}%` : '—');

/** The variants with what each sends and, once the test started, its figures; the winner marked and why. */
export function AbTestResultsTable({ test, results, emails, emailId }: AbTestResultsTableProps) {
  const emailName = (id: number | null) => {
    const email = emails?.find((item) => item.id === (id ?? emailId));
    return email?.name ?? ((id ?? emailId) ? `Email ${id ?? emailId}` : 'The broadcast’s email');
  };
  const subjectOf = (id: number | null) => emails?.find((item) => item.id === (id ?? emailId))?.subject;
  const decided = test.winner !== null;
  return (
    <>
      {/* Scrolls sideways on a narrow screen; focusable so a keyboard can scroll it too. */}
      <div
        role="region"
        aria-label="A/B test variants, scrollable"
        tabIndex={0}
        style={{ overflowX: 'auto' }}
      >
        <Table verticalSpacing="xs" aria-label="A/B test variants" miw={results ? 560 : 360}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Variant</Table.Th>
              <Table.Th>Subject and email</Table.Th>
              {results && (
                <>
                  <Table.Th ta="right">Sent</Table.Th>
                  <Table.Th ta="right">Opens</Table.Th>
                  <Table.Th ta="right">Clicks</Table.Th>
                  <Table.Th ta="right">{test.metric === 'opens' ? 'Open rate' : 'Click rate'}</Table.Th>
                </>
              )}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {test.variants.map((variant, index) => {
              const figures = results?.variants[index];
              return (
                <Table.Tr key={variant.name} data-variant={variant.name}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    <Group gap="xs" wrap="nowrap">
                      <Text fw={600}>{variant.name}</Text>
                      {test.winner === index && (
                        <Badge
                          color="green"
                          variant="light"
                          leftSection={<IconTrophy size={12} aria-hidden />}
                        >
                          Winner
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" style={{ wordBreak: 'break-word' }}>
                      {variant.subject ?? subjectOf(variant.emailId) ?? 'The email’s own subject'}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {emailName(variant.emailId)}
                    </Text>
                  </Table.Td>
                  {results && (
                    <>
                      <Table.Td ta="right">{(figures?.sent ?? 0).toLocaleString()}</Table.Td>
                      <Table.Td ta="right">{(figures?.opens ?? 0).toLocaleString()}</Table.Td>
                      <Table.Td ta="right">{(figures?.clicks ?? 0).toLocaleString()}</Table.Td>
                      <Table.Td ta="right">{rate(figures?.[test.metric] ?? 0, figures?.sent ?? 0)}</Table.Td>
                    </>
                  )}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </div>
      {decided && test.explanation && (
        <Alert
          color="green"
          variant="light"
          icon={<IconTrophy size={18} />}
          title={`Variant ${test.variants[test.winner!]?.name ?? ''} was sent to the rest`}
        >
          {test.explanation}
        </Alert>
      )}
      {!decided && test.decidesAt && (
        <Group gap="xs" wrap="nowrap" align="flex-start">
          <IconClock size={16} aria-hidden style={{ flexShrink: 0, marginTop: 2 }} />
          <Text size="sm">
            The winner is chosen by {test.metric} on {formatDateTime(test.decidesAt)} and sent to everyone
            else.
          </Text>
        </Group>
      )}
    </>
  );
}
