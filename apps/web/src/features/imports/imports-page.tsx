import { Anchor, Button, Card, Group, Stack, Table, Text } from '@mantine/core';
import { IconArrowLeft, IconFileImport, IconPlus } from '@tabler/icons-react';
import { Link, useNavigate } from 'react-router';
import { formatDateTime } from '../../lib/format.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListPage, seeGate } from '../../ui/list-page.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { useAccess } from '../account/use-access.ts';
import { countsSummary, ImportProgress, ImportStatusBadge } from './import-status.tsx';
import { importListMessages, useImports } from './imports.api.ts';

/** /people/imports: every import, newest first, refreshing while one runs. */
export function ImportsPage() {
  const { isReady, canRead, canWrite } = useAccess(['people:read'], ['people:write']);
  const imports = useImports({ enabled: canRead });
  const navigate = useNavigate();
  const isNarrow = useIsNarrow('tablet');

  const list = imports.data?.imports ?? [];
  const newButton = canWrite ? (
    <Button component={Link} to="/people/imports/new" leftSection={<IconPlus size={16} />}>
      New import
    </Button>
  ) : null;

  return (
    <ListPage
      back={
        <Anchor component={Link} to="/people" size="sm" c="dimmed">
          <Group gap={4} component="span">
            <IconArrowLeft size={14} /> People
          </Group>
        </Anchor>
      }
      title="Imports"
      description="People brought in from CSV files, newest first."
      actions={list.length > 0 && newButton}
      isReady={isReady}
      gate={seeGate(canRead, 'imports', 'See people')}
      query={imports}
      loadingLabel="Loading imports"
      errorFallback={importListMessages.loadList}
      isEmpty={list.length === 0}
      empty={
        <EmptyState
          icon={<IconFileImport size={28} />}
          title="No imports yet"
          description="Import people from a CSV file exported from a spreadsheet or another tool. Their progress and results show here."
          action={newButton}
        />
      }
    >
      {isNarrow ? (
        <Stack gap="sm">
          {list.map((imp) => (
            <Card key={imp.id} withBorder radius="md" p="md">
              <Stack gap="xs">
                <Group justify="space-between" wrap="nowrap" gap="xs">
                  <Anchor
                    component={Link}
                    to={`/people/imports/${imp.id}`}
                    fw={600}
                    style={{ wordBreak: 'break-word' }}
                  >
                    {imp.name}
                  </Anchor>
                  <ImportStatusBadge imp={imp} />
                </Group>
                <ImportProgress imp={imp} />
                <Group justify="space-between" gap="xs">
                  <Text size="sm">{countsSummary(imp)}</Text>
                  <Text size="xs" c="dimmed">
                    {formatDateTime(imp.createdAt)}
                  </Text>
                </Group>
              </Stack>
            </Card>
          ))}
        </Stack>
      ) : (
        <TableCard aria-label="Imports">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th w={130}>Status</Table.Th>
              <Table.Th w={180}>Progress</Table.Th>
              <Table.Th>Result</Table.Th>
              <Table.Th w={140}>Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.map((imp) => (
              <Table.Tr
                key={imp.id}
                style={{ cursor: 'pointer' }}
                onClick={() => void navigate(`/people/imports/${imp.id}`)}
              >
                <Table.Td>
                  <Anchor
                    component={Link}
                    to={`/people/imports/${imp.id}`}
                    fw={500}
                    size="sm"
                    onClick={(e) => e.stopPropagation()}
                    style={{ wordBreak: 'break-word' }}
                  >
                    {imp.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <ImportStatusBadge imp={imp} />
                </Table.Td>
                <Table.Td>
                  <ImportProgress imp={imp} />
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{countsSummary(imp)}</Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" c="dimmed">
                    {formatDateTime(imp.createdAt)}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </TableCard>
      )}
    </ListPage>
  );
}
