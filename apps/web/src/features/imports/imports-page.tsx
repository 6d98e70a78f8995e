import { hasScopes } from '@herald/contracts';
import { Anchor, Button, Card, Group, Stack, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconArrowLeft, IconFileImport, IconLock, IconPlus } from '@tabler/icons-react';
import { Link, useNavigate } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { useAccount } from '../account/account.api.ts';
import { countsSummary, ImportProgress, ImportStatusBadge } from './import-status.tsx';
import { importListMessages, useImports } from './imports.api.ts';
import { LoadError } from '../../ui/load-error.tsx';

/** /people/imports: every import, newest first, refreshing while one runs. */
export function ImportsPage() {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canRead = accountData ? hasScopes(accountData, ['people:read']) : false;
  const canWrite = accountData ? hasScopes(accountData, ['people:write']) : false;
  const imports = useImports({ enabled: canRead });
  const navigate = useNavigate();
  const isNarrow = useMediaQuery('(max-width: 699px)');

  if (!account.data) return <LoadingSpinner />;

  const newButton = canWrite ? (
    <Button component={Link} to="/people/imports/new" leftSection={<IconPlus size={16} />}>
      New import
    </Button>
  ) : null;

  const header = (
    <PageHeader
      back={
        <Anchor component={Link} to="/people" size="sm" c="dimmed">
          <Group gap={4} component="span">
            <IconArrowLeft size={14} /> People
          </Group>
        </Anchor>
      }
      title="Imports"
      description="People brought in from CSV files, newest first."
      actions={(imports.data?.imports.length ?? 0) > 0 && newButton}
    />
  );

  let content;
  if (!canRead)
    content = (
      <EmptyState
        icon={<IconLock size={28} />}
        title="You can't see imports"
        description="Seeing imports needs the “See people” permission. Ask an owner of the account to give it to you."
      />
    );
  else if (imports.isPending) content = <LoadingSpinner label="Loading imports" />;
  else if (imports.isError)
    content = (
      <LoadError
        message={errorMessage(imports.error, importListMessages.loadList)}
        onRetry={() => void imports.refetch()}
      />
    );
  else if (imports.data.imports.length === 0)
    content = (
      <EmptyState
        icon={<IconFileImport size={28} />}
        title="No imports yet"
        description="Import people from a CSV file exported from a spreadsheet or another tool. Their progress and results show here."
        action={newButton}
      />
    );
  else if (isNarrow)
    content = (
      <Stack gap="sm">
        {imports.data.imports.map((imp) => (
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
    );
  else
    content = (
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
          {imports.data.imports.map((imp) => (
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
    );

  return (
    <Stack gap="lg" py="md">
      {header}
      {content}
    </Stack>
  );
}
