import {
  hasScopes,
  sendingMessages,
  suppressionReasonLabels,
  suppressionReasons,
  type Suppression,
  type SuppressionReason,
} from '@herald/contracts';
import {
  Anchor,
  Badge,
  Button,
  Group,
  Pagination,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  VisuallyHidden,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconDownload, IconHistory, IconMailOff, IconPlus, IconSearch } from '@tabler/icons-react';
import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';
import { useListState } from '../../lib/use-list-state.ts';
import { formatDateTime } from '../../lib/format.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListPage } from '../../ui/list-page.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { useAccess } from '../account/use-access.ts';
import { BulkEraseModal } from '../people/bulk-erase-modal.tsx';
import { EventRetentionSetting } from '../people/event-retention-setting.tsx';
import { EmailSettingsNav } from '../senders/email-settings-nav.tsx';
import {
  AddSuppressionsModal,
  reasonOptions,
  RemoveSuppressionModal,
  SuppressionHistoryDrawer,
} from './suppression-dialogs.tsx';
import { suppressionsExportUrl, useSuppressions } from './suppressions.api.ts';

const isReason = (value: string | null): value is SuppressionReason =>
  suppressionReasons.includes(value as SuppressionReason);

/** The list's filters live in the query string, so a person's page can link to their address (`?search=`). */
function useFilterParams() {
  const state = useListState({ search: '', reason: '', page: 1 });
  const { search, reason, page } = state.values;
  const filter = {
    search,
    reason: isReason(reason) ? reason : null,
    page: Number.isInteger(page) && page > 0 ? page : 1,
  };
  // Any change but the page's goes back to the first page.
  const set = ({ reason: changed, ...changes }: { search?: string; reason?: string | null; page?: number }) =>
    state.set({ page: 1, ...changes, ...(changed !== undefined ? { reason: changed ?? '' } : {}) });
  return { filter, set };
}

function SuppressionRow({
  item,
  isNarrow,
  canWrite,
  onHistory,
  onRemove,
}: {
  item: Suppression;
  isNarrow: boolean;
  canWrite: boolean;
  onHistory: () => void;
  onRemove: () => void;
}) {
  const reason = (
    <Badge
      variant="light"
      color={item.reason === 'manual' || item.reason === 'unsubscribed' ? 'gray' : 'red'}
      size="sm"
      tt="none"
      style={{ flexShrink: 0 }}
    >
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
          <Button
            size="xs"
            variant="default"
            leftSection={isNarrow ? undefined : <IconHistory size={14} />}
            onClick={onHistory}
            aria-label={`History of ${item.email}`}
          >
            History
          </Button>
          {canWrite && (
            <Button
              size="xs"
              variant="subtle"
              color="red"
              onClick={onRemove}
              aria-label={`Remove ${item.email}`}
            >
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
  const { account, isReady, canRead, canWrite } = useAccess(['people:read'], ['people:write']);
  const canExport = account.data ? hasScopes(account.data.teamMember.accountData, ['people:export']) : false;
  const canChangeRetention = account.data
    ? hasScopes(account.data.teamMember.accountData, ['account:write'])
    : false;
  const { filter, set } = useFilterParams();
  const [search, setSearch] = useState(filter.search);
  const [debounced] = useDebouncedValue(search, 400);
  const list = useSuppressions(filter, { enabled: canRead });
  const [isAdding, setIsAdding] = useState(false);
  const [isErasing, setIsErasing] = useState(false);
  const [removing, setRemoving] = useState<string | null>(null);
  const [historyOf, setHistoryOf] = useState<string | null>(null);
  const isNarrow = useIsNarrow('tablet');

  // Typing filters after a pause (only a settled change of the typed text counts); the query string
  // follows so the view can be linked and reloaded.
  useEffect(() => {
    if (debounced.trim() !== filter.search) set({ search: debounced.trim() });
  }, [debounced]);

  const onSearch = (event: FormEvent) => {
    event.preventDefault();
    set({ search: search.trim() });
  };
  const isFiltered = filter.search !== '' || filter.reason !== null;
  const data = list.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / data.pageSize)) : 1;
  const rows = data?.suppressions ?? [];

  return (
    <ListPage
      title="Suppression List"
      description="Addresses Herald holds mail back from. People who unsubscribed or complained get no marketing email; hard bounces, invalid addresses and addresses added by hand get none at all."
      actions={
        <Group gap="xs">
          {canExport && (
            <Button
              component="a"
              href={suppressionsExportUrl}
              download="suppressions.csv"
              variant="default"
              leftSection={<IconDownload size={16} />}
            >
              Export CSV
            </Button>
          )}
          {canWrite && (
            <Button variant="default" color="red" onClick={() => setIsErasing(true)}>
              Erase people…
            </Button>
          )}
          {canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setIsAdding(true)}>
              Add addresses
            </Button>
          )}
        </Group>
      }
      tabs={<EmailSettingsNav />}
      notices={canRead && <EventRetentionSetting canChange={canChangeRetention} />}
      isReady={isReady}
      gate={{
        canRead,
        title: "You can't see the suppression list",
        description:
          'Seeing it needs the “See people” permission. Ask an owner of the account to give it to you.',
      }}
      readOnly={
        !canWrite &&
        'You can see the suppression list. Changing it needs the “Add and edit people” permission.'
      }
      toolbar={
        <form onSubmit={onSearch} role="search">
          <Group gap="sm" align="flex-end" wrap="wrap">
            <TextInput
              label="Search"
              placeholder="Address or part of it"
              leftSection={<IconSearch size={16} />}
              value={search}
              onChange={(event) => setSearch(event.currentTarget.value)}
              style={{ flex: '1 1 240px' }}
              type="search"
            />
            <Select
              label="Reason"
              placeholder="Any reason"
              data={reasonOptions}
              value={filter.reason}
              onChange={(value) => set({ reason: value })}
              clearable
              w={{ base: '100%', xs: 220 }}
            />
          </Group>
        </form>
      }
      query={list}
      loadingLabel="Loading the suppression list"
      errorFallback={sendingMessages.suppressionsLoadError}
      isEmpty={rows.length === 0 && !isFiltered}
      empty={
        <EmptyState
          icon={<IconMailOff size={28} />}
          title="No suppressed addresses"
          description="Addresses land here when people unsubscribe, mail to them bounces hard or they mark it as spam. You can add addresses by hand too."
        />
      }
      isNoMatch={rows.length === 0}
      noMatch={
        <EmptyState
          icon={<IconSearch size={28} />}
          title="No matching addresses"
          description="No suppressed address matches this search and reason."
          action={
            <Button variant="light" onClick={() => (setSearch(''), set({ search: '', reason: null }))}>
              Clear filters
            </Button>
          }
        />
      }
      pagination={
        pages > 1 &&
        data && (
          <Pagination
            total={pages}
            value={data.page}
            onChange={(page) => set({ page })}
            siblings={isNarrow ? 0 : 1}
            aria-label="Pages"
          />
        )
      }
      after={
        <>
          <AddSuppressionsModal opened={isAdding} onClose={() => setIsAdding(false)} />
          <BulkEraseModal opened={isErasing} onClose={() => setIsErasing(false)} />
          <RemoveSuppressionModal email={removing} onClose={() => setRemoving(null)} />
          <SuppressionHistoryDrawer email={historyOf} onClose={() => setHistoryOf(null)} />
        </>
      }
    >
      <Stack gap="sm">
        <Text size="sm" c="dimmed" aria-live="polite">
          {(data?.total ?? 0).toLocaleString()} {data?.total === 1 ? 'address' : 'addresses'}
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
            {rows.map((item) => (
              <SuppressionRow
                key={item.email}
                item={item}
                isNarrow={isNarrow}
                canWrite={canWrite}
                onHistory={() => setHistoryOf(item.email)}
                onRemove={() => setRemoving(item.email)}
              />
            ))}
          </Table.Tbody>
        </TableCard>
      </Stack>
    </ListPage>
  );
}
