import { flowMessages } from '@herald/contracts';
import { Anchor, Modal, Stack, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { formatDateTime, formatRelative } from '../../lib/format.ts';
import { ListBody } from '../../ui/list-page.tsx';
import { useStepPeople } from './flows.api.ts';

/** The people waiting at a step now (GET /v1/steps/{id}/people), each opening their profile. */
export function StepPeopleModal({
  step,
  onClose,
}: {
  step: { id: number; label: string; count: number } | null;
  onClose: () => void;
}) {
  const people = useStepPeople(step?.id ?? null);
  const rows = people.data?.people ?? [];
  return (
    <Modal opened={step !== null} onClose={onClose} title={step ? `People at “${step.label}”` : ''} size="lg">
      <ListBody
        query={people}
        loadingLabel="Loading people"
        skeletonHeights={[36, 36, 36]}
        errorFallback={flowMessages.stepLoadError}
        isEmpty={rows.length === 0}
        empty={<Text c="dimmed">Nobody is at this step now.</Text>}
      >
        <Stack gap="xs">
          {step && step.count > rows.length && (
            <Text size="sm" c="dimmed">
              The {rows.length.toLocaleString()} who arrived first of {step.count.toLocaleString()}.
            </Text>
          )}
          <Table.ScrollContainer minWidth={420}>
            <Table verticalSpacing="xs" aria-label="People at this step">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Person</Table.Th>
                  <Table.Th>Here since</Table.Th>
                  <Table.Th>Goes on</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((person) => {
                  const name = [person.firstName, person.lastName].filter(Boolean).join(' ');
                  return (
                    <Table.Tr key={person.id}>
                      <Table.Td>
                        <Anchor component={Link} to={`/people/${person.id}`} size="sm" fw={600}>
                          {name || person.email || `Person ${person.id}`}
                        </Anchor>
                        {name && person.email && (
                          <Text size="xs" c="dimmed">
                            {person.email}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{formatRelative(person.waitingSince)}</Text>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{person.wakeAt ? formatDateTime(person.wakeAt) : 'Now'}</Text>
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Stack>
      </ListBody>
    </Modal>
  );
}
