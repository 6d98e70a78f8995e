import { hasScopes, peopleMessages, type Person } from '@herald/contracts';
import {
  Button,
  Checkbox,
  Group,
  NavLink as MantineNavLink,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMediaQuery, useThrottledValue } from '@mantine/hooks';
import { IconFileImport, IconLock, IconSearch, IconUserPlus, IconUsers } from '@tabler/icons-react';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { useAccount } from '../account/account.api.ts';
import { AddPersonModal } from './add-person-modal.tsx';
import { BulkBar, BulkProgress } from './bulk-actions.tsx';
import { effectiveQuery, searchThrottleMs, usePeopleSearch, usePersonFields } from './people.api.ts';
import { defaultTableFields, FieldValue, fieldTitle, fieldType } from './person-values.tsx';
import { LoadError } from '../../ui/load-error.tsx';

function ListsColumn({ isNarrow }: { isNarrow: boolean }) {
  return (
    <Paper
      withBorder
      radius="md"
      p="xs"
      w={isNarrow ? '100%' : 220}
      style={{ flexShrink: 0 }}
      component="nav"
      aria-label="Lists"
    >
      <Text size="xs" fw={700} tt="uppercase" c="dimmed" px="xs" py={4}>
        Lists
      </Text>
      <MantineNavLink
        component={Link}
        to="/people"
        label="All People"
        active
        leftSection={<IconUsers size={16} />}
        aria-current="page"
        style={{ borderRadius: 'var(--mantine-radius-sm)' }}
      />
    </Paper>
  );
}

/** /people and /segments: the All People list with search, selection and bulk actions. */
export function PeoplePage() {
  const account = useAccount();
  const navigate = useNavigate();
  const accountData = account.data?.teamMember.accountData;
  const canRead = accountData ? hasScopes(accountData, ['people:read']) : false;
  const canWrite = accountData ? hasScopes(accountData, ['people:write']) : false;
  const canExport = accountData ? hasScopes(accountData, ['people:export']) : false;
  const isNarrow = useMediaQuery('(max-width: 899px)');

  const [input, setInput] = useState('');
  // Throttled to one search per 500 ms; fewer than 2 characters lists everyone.
  const throttled = useThrottledValue(input, searchThrottleMs);
  const query = effectiveQuery(throttled);
  const search = usePeopleSearch(query, { enabled: canRead });
  const fields = usePersonFields({ enabled: canRead });
  const [selected, setSelected] = useState<number[]>([]);
  const [isAddOpen, setIsAddOpen] = useState(false);
  const [bulkActions, setBulkActions] = useState<number[]>([]);

  // A new query starts again at page 0 (a new query key) and clears the selection.
  useEffect(() => setSelected([]), [query]);

  const finishBulk = useCallback((id: number) => setBulkActions((ids) => ids.filter((x) => x !== id)), []);
  const people: Person[] = useMemo(() => {
    const pages = search.data?.pages ?? [];
    const seen = new Set<number>();
    return pages.flatMap((p) => p.users).filter((p) => (seen.has(p.id) ? false : (seen.add(p.id), true)));
  }, [search.data]);

  const columns = useMemo(() => {
    const chosen = (account.data?.peopleTableFields ?? []).filter((f) => f.enabled).map((f) => f.name);
    return chosen.length > 0 ? chosen : [...defaultTableFields];
  }, [account.data?.peopleTableFields]);

  if (!account.data) return <LoadingSpinner />;

  const header = (
    <PageHeader
      title="People"
      description="Everyone in your account, newest first."
      actions={
        canWrite && (
          <Group gap="xs">
            <Button
              variant="default"
              component={Link}
              to="/people/imports/new"
              leftSection={<IconFileImport size={16} />}
            >
              Import
            </Button>
            <Button leftSection={<IconUserPlus size={16} />} onClick={() => setIsAddOpen(true)}>
              Add person
            </Button>
          </Group>
        )
      }
    />
  );

  if (!canRead) {
    return (
      <Stack gap="lg" py="md">
        {header}
        <EmptyState
          icon={<IconLock size={28} />}
          title="You can't see people"
          description="Seeing people needs the “See people” permission. Ask an owner of the account to give it to you."
        />
      </Stack>
    );
  }

  const allSelected = people.length > 0 && people.every((p) => selected.includes(p.id));
  const someSelected = selected.length > 0 && !allSelected;
  const toggle = (id: number, on: boolean) =>
    setSelected((ids) => (on ? [...ids, id] : ids.filter((x) => x !== id)));
  const isLoading = search.isPending;

  let content;
  if (isLoading) content = <LoadingSpinner label="Loading people" />;
  else if (search.isError)
    content = (
      <LoadError
        message={errorMessage(search.error, peopleMessages.searchError)}
        onRetry={() => void search.refetch()}
      />
    );
  else if (people.length === 0 && query === '')
    content = (
      <EmptyState
        icon={<IconUsers size={28} />}
        title="No people yet"
        description="Add people one by one, import them from a CSV file, or send them from your site and apps."
        action={
          canWrite ? (
            <Group gap="xs" justify="center">
              <Button onClick={() => setIsAddOpen(true)} leftSection={<IconUserPlus size={16} />}>
                Add person
              </Button>
              <Button
                variant="default"
                component={Link}
                to="/people/imports/new"
                leftSection={<IconFileImport size={16} />}
              >
                Import people
              </Button>
            </Group>
          ) : undefined
        }
      />
    );
  else if (people.length === 0)
    content = (
      <Paper withBorder radius="md" p="xl">
        <Text c="dimmed" ta="center">
          No people match “{query}”.
        </Text>
      </Paper>
    );
  else
    content = (
      <Stack gap="sm">
        <TableCard minWidth={Math.max(560, columns.length * 150)} verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={40}>
                <Checkbox
                  aria-label="Select all people shown"
                  checked={allSelected}
                  indeterminate={someSelected}
                  onChange={(e) => setSelected(e.currentTarget.checked ? people.map((p) => p.id) : [])}
                />
              </Table.Th>
              {columns.map((name) => (
                <Table.Th key={name}>{fieldTitle(name, fields.data?.items)}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {people.map((person) => {
              const isSelected = selected.includes(person.id);
              return (
                <Table.Tr
                  key={person.id}
                  onClick={() => void navigate(`/people/${person.id}`)}
                  style={{ cursor: 'pointer' }}
                  bg={isSelected ? 'var(--mantine-color-indigo-light)' : undefined}
                >
                  <Table.Td onClick={(e) => e.stopPropagation()}>
                    <Checkbox
                      aria-label={`Select ${person.email ?? person.id}`}
                      checked={isSelected}
                      onChange={(e) => toggle(person.id, e.currentTarget.checked)}
                    />
                  </Table.Td>
                  {columns.map((name) => (
                    <Table.Td key={name}>
                      {name === 'email' ? (
                        <Text
                          component={Link}
                          to={`/people/${person.id}`}
                          size="sm"
                          fw={500}
                          c="indigo.7"
                          onClick={(e) => e.stopPropagation()}
                          style={{ wordBreak: 'break-all' }}
                        >
                          {person.email ?? `Person ${person.id}`}
                        </Text>
                      ) : (
                        <FieldValue person={person} name={name} type={fieldType(name, fields.data?.items)} />
                      )}
                    </Table.Td>
                  ))}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </TableCard>
        <Group justify="space-between" wrap="wrap">
          <Text size="sm" c="dimmed">
            {people.length.toLocaleString()} {people.length === 1 ? 'person' : 'people'} shown
          </Text>
          {search.hasNextPage && (
            <Button
              variant="default"
              onClick={() => void search.fetchNextPage()}
              loading={search.isFetchingNextPage}
            >
              Load more
            </Button>
          )}
        </Group>
      </Stack>
    );

  return (
    <Stack gap="lg" py="md">
      {header}
      <Group align="flex-start" gap="lg" wrap={isNarrow ? 'wrap' : 'nowrap'}>
        <ListsColumn isNarrow={isNarrow} />
        <Stack gap="sm" style={{ flex: 1, minWidth: 0 }} w={isNarrow ? '100%' : undefined}>
          <Group justify="space-between" gap="sm" wrap="wrap">
            <Title order={2} fz={20}>
              All People
            </Title>
            <TextInput
              aria-label="Search people"
              placeholder="Search by email or name"
              leftSection={<IconSearch size={16} />}
              value={input}
              onChange={(e) => setInput(e.currentTarget.value)}
              w={isNarrow ? '100%' : 300}
              maxLength={200}
              type="search"
            />
          </Group>
          {bulkActions.map((id) => (
            <BulkProgress key={id} id={id} onFinished={() => finishBulk(id)} />
          ))}
          {selected.length > 0 && (
            <BulkBar
              selected={selected}
              canWrite={canWrite}
              canExport={canExport}
              notifyEmail={account.data.teamMember.email || account.data.email}
              onStarted={(id) => setBulkActions((ids) => [...ids, id])}
              onClear={() => setSelected([])}
            />
          )}
          {content}
        </Stack>
      </Group>
      <AddPersonModal opened={isAddOpen} onClose={() => setIsAddOpen(false)} />
    </Stack>
  );
}
