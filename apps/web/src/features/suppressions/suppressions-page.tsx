import { hasScopes, sendingMessages, suppressionReasonLabels, suppressionReasons, type Suppression, type SuppressionReason } from '@herald/contracts';
import { Alert, Anchor, Badge, Button, Group, Pagination, Select, Stack, Table, Text, TextInput, VisuallyHidden } from '@mantine/core';
import { useDebouncedValue, useMediaQuery } from '@mantine/hooks';
import { IconDownload, IconHistory, IconLock, IconMailOff, IconPlus, IconSearch } from '@tabler/icons-react';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { LoadError } from '../../ui/load-error.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { useAccount } from '../account/account.api.ts';
import { EmailSettingsNav } from '../senders/email-settings-nav.tsx';
import { AddSuppressionsModal, reasonOptions, RemoveSuppressionModal, SuppressionHistoryDrawer } from './suppression-dialogs.tsx';
import { suppressionsExportUrl, useSuppressions } from './suppressions.api.ts';

const isReason = (value: string | null): value is SuppressionReason => suppressionReasons.includes(value as SuppressionReason);

/** The list's filters live in the query string, so a person's page can link to their address (`?search=`). */
function useFilterParams() {
  const [params, setParams] = useSearchParams();
  const reason = params.get('reason');
  const page = Number(params.get('page') ?? '1');
  const filter = {
    search: params.get('search') ?? '',
    reason: isReason(reason) ? reason : null,
    page: Number.isInteger(page) && page > 0 ? page : 1,
  };
  const set = (changes: { search?: string; reason?: string | null; page?: number }) =>
    setParams(
      (current) => {
        for (const [name, value] of Object.entries(changes)) {
          if (value === null || value === '' || (name === 'page' && value === 1)) current.delete(name);
          else current.set(name, String(value));
        }
        if (!('page' in changes)) current.delete('page');
        return current;
      },
      { replace: true },
    );
  return { filter, set };
}

function SuppressionRow({ item, isNarrow, canWrite, onHistory, onRemove }: { item: Suppression; isNarrow: boolean; canWrite: boolean; onHistory: () => void; onRemove: () => void }) {
  const reason = (
    <Badge variant="light" color={item.reason === 'manual' || item.reason === 'unsubscribed' ? 'gray' : 'red'} size="sm" tt="none" style={{ flexShrink: 0 }}>
      {suppressionReasonLabels[item.reason]}
    </Badge>
  );
  const time = (
    <Text size={isNarrow ? 'xs' : 'sm'} c="dimmed" style={{ whiteSpace: 'nowrap' }}>
      {formatDateTime(item.createdAt)}
    </Text>
  );
  return (
    <Table.Tr>
      <Table.Td style={{ wordBreak: 'break-all' }}>
        <Stack gap={4}>
          {item.personId ? (
            <Anchor component={Link} to={`/people/${item.personId}`} size="sm">
              {item.email}
            </Anchor>
          ) : (
            <Text size="sm">{item.email}</Text>
          )}
          {isNarrow && (
            <Group gap={6} wrap="wrap">
              {reason}
              {time}
            </Group>
          )}
          {isNarrow && item.note && (
            <Text size="xs" c="dimmed" lineClamp={2} style={{ wordBreak: 'break-word' }}>
              {item.note}
            </Text>
          )}
        </Stack>
      </Table.Td>
      {!isNarrow && <Table.Td>{reason}</Table.Td>}
      {!isNarrow && (
        <Table.Td>
          <Text size="sm" c="dimmed" style={{ wordBreak: 'break-word' }}>
            {item.source}
          </Text>
        </Table.Td>
      )}
      {!isNarrow && (
        <Table.Td>
          <Text size="sm" c={item.note ? undefined : 'dimmed'} lineClamp={2}>
            {item.note || '—'}
          </Text>
        </Table.Td>
      )}
      {!isNarrow && <Table.Td>{time}</Table.Td>}
      <Table.Td>
        <Group gap="xs" justify="flex-end" wrap={isNarrow ? 'wrap' : 'nowrap'}>
          <Button size="xs" variant="default" leftSection={isNarrow ? undefined : <IconHistory size={14} />} onClick={onHistory} aria-label={`History of ${item.email}`}>
            History
          </Button>
          {canWrite && (
            <Button size="xs" variant="subtle" color="red" onClick={onRemove} aria-label={`Remove ${item.email}`}>
              Remove
            </Button>
          )}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/** /settings/email/suppressions: addresses no email goes to (unsubscribed, bounced, complained, added by hand). */
export function SuppressionsPage() {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canRead = accountData ? hasScopes(accountData, ['people:read']) : false;
  const canWrite = accountData ? hasScopes(accountData, ['people:write']) : false;
  const canExport = accountData ? hasScopes(accountData, ['people:export']) : false;
  const { filter, set } = useFilterParams();
  const [search, setSearch] = useState(filter.search);
  const [debounced] = useDebouncedValue(search, 400);
  const list = useSuppressions(filter, { enabled: canRead });
  const [isAdding, setIsAdding] = useState(false);
  const [removing, setRemoving] = useState<string | null>(null);
  const [historyOf, setHistoryOf] = useState<string | null>(null);
  const isNarrow = useMediaQuery('(max-width: 767px)') ?? false;

  // Typing filters after a pause (only a settled change of the typed text counts); the query string
  // follows so the view can be linked and reloaded.
  useEffect(() => {
    if (debounced.trim() !== filter.search) set({ search: debounced.trim() });
  }, [debounced]);

  if (!account.data) return <LoadingSpinner />;

  const header = (
    <PageHeader
      title="Suppression List"
      description="Addresses Herald holds mail back from. People who unsubscribed or complained get no marketing email; hard bounces, invalid addresses and addresses added by hand get none at all."
      actions={
        canRead && (
          <Group gap="xs">
            {canExport && (
              <Button component="a" href={suppressionsExportUrl} download="suppressions.csv" variant="default" leftSection={<IconDownload size={16} />}>
                Export CSV
              </Button>
            )}
            {canWrite && (
              <Button leftSection={<IconPlus size={16} />} onClick={() => setIsAdding(true)}>
                Add addresses
              </Button>
            )}
          </Group>
        )
      }
    />
  );

  if (!canRead)
    return (
      <Stack gap="lg" py="md">
        {header}
        <EmailSettingsNav />
        <EmptyState icon={<IconLock size={28} />} title="You can't see the suppression list" description="Seeing it needs the “See people” permission. Ask an owner of the account to give it to you." />
      </Stack>
    );

  const onSearch = (event: FormEvent) => {
    event.preventDefault();
    set({ search: search.trim() });
  };
  const isFiltered = filter.search !== '' || filter.reason !== null;
  const data = list.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / data.pageSize)) : 1;

  let content;
  if (list.isPending) content = <LoadingSpinner label="Loading the suppression list" />;
  else if (list.isError) content = <LoadError message={errorMessage(list.error, sendingMessages.suppressionsLoadError)} onRetry={() => void list.refetch()} />;
  else if (data && data.suppressions.length === 0)
    content = isFiltered ? (
      <EmptyState icon={<IconSearch size={28} />} title="No matching addresses" description="No suppressed address matches this search and reason." action={<Button variant="light" onClick={() => (setSearch(''), set({ search: '', reason: null }))}>Clear filters</Button>} />
    ) : (
      <EmptyState icon={<IconMailOff size={28} />} title="No suppressed addresses" description="Addresses land here when people unsubscribe, mail to them bounces hard or they mark it as spam. You can add addresses by hand too." />
    );
  else if (data)
    content = (
      <Stack gap="sm">
        <Text size="sm" c="dimmed" aria-live="polite">
          {data.total.toLocaleString()} {data.total === 1 ? 'address' : 'addresses'}
        </Text>
        <TableCard minWidth={isNarrow ? undefined : 860} aria-label="Suppressed addresses">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Email</Table.Th>
              {!isNarrow && <Table.Th>Reason</Table.Th>}
              {!isNarrow && <Table.Th>Source</Table.Th>}
              {!isNarrow && <Table.Th>Note</Table.Th>}
              {!isNarrow && <Table.Th>Time</Table.Th>}
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.suppressions.map((item) => (
              <SuppressionRow key={item.email} item={item} isNarrow={isNarrow} canWrite={canWrite} onHistory={() => setHistoryOf(item.email)} onRemove={() => setRemoving(item.email)} />
            ))}
          </Table.Tbody>
        </TableCard>
        {pages > 1 && <Pagination total={pages} value={data.page} onChange={(page) => set({ page })} siblings={isNarrow ? 0 : 1} aria-label="Pages" />}
      </Stack>
    );

  return (
    <Stack gap="lg" py="md">
      {header}
      <EmailSettingsNav />
      {!canWrite && (
        <Alert variant="light" color="gray" icon={<IconLock size={18} />}>
          You can see the suppression list. Changing it needs the “Add and edit people” permission.
        </Alert>
      )}
      <form onSubmit={onSearch} role="search">
        <Group gap="sm" align="flex-end" wrap="wrap">
          <TextInput label="Search" placeholder="Address or part of it" leftSection={<IconSearch size={16} />} value={search} onChange={(event) => setSearch(event.currentTarget.value)} style={{ flex: '1 1 240px' }} type="search" />
          <Select label="Reason" placeholder="Any reason" data={reasonOptions} value={filter.reason} onChange={(value) => set({ reason: value })} clearable w={{ base: '100%', xs: 220 }} />
        </Group>
      </form>
      {content}
      <AddSuppressionsModal opened={isAdding} onClose={() => setIsAdding(false)} />
      <RemoveSuppressionModal email={removing} onClose={() => setRemoving(null)} />
      <SuppressionHistoryDrawer email={historyOf} onClose={() => setHistoryOf(null)} />
    </Stack>
  );
}
