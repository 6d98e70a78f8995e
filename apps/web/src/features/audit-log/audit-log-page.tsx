import { auditLogMessages, type AuditLogEntry } from '@herald/contracts';
import { Button, Code, Group, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { IconDownload, IconHistory, IconSearch } from '@tabler/icons-react';
import { formatDateTime } from '../../lib/format.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';
import { useListState } from '../../lib/use-list-state.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListPage, seeGate } from '../../ui/list-page.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { useAccess } from '../account/use-access.ts';
import { auditLogExportUrl, useAuditLog, useAuditLogFacets } from './audit-log.api.ts';
import { RetentionSetting } from './retention-setting.tsx';

/** A value as one short line: text as it is, anything else as JSON; nothing as an em dash. */
function shown(value: unknown): string {
  if (value === undefined || value === null || value === '') return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The entry's fields that changed, one line each: `name: Old → New`. */
function Changes({ entry }: { entry: AuditLogEntry }) {
  const fields = Object.entries(entry.changes ?? {});
  if (fields.length === 0)
    return (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  return (
    <Stack gap={2}>
      {fields.map(([name, change]) => (
        <Text key={name} size="sm" style={{ wordBreak: 'break-word' }} lineClamp={3}>
          <Code>{name}</Code>{' '}
          {'before' in change ? `${shown(change.before)} → ${shown(change.after)}` : shown(change.after)}
        </Text>
      ))}
    </Stack>
  );
}

function EntryRow({ entry, isNarrow }: { entry: AuditLogEntry; isNarrow: boolean }) {
  const what = `${entry.resourceType}${entry.resourceId ? ` #${entry.resourceId}` : ''}`;
  const when = (
    <Text size={isNarrow ? 'xs' : 'sm'} c="dimmed" style={{ whiteSpace: 'nowrap' }}>
      {formatDateTime(entry.at)}
    </Text>
  );
  const who = (
    <Stack gap={0}>
      <Text size="sm" style={{ wordBreak: 'break-all' }}>
        {entry.actor.label}
      </Text>
      <Text size="xs" c="dimmed">
        {entry.actor.kind === 'api_key' ? 'API key' : 'Team member'}
        {entry.ip ? ` · ${entry.ip}` : ''}
      </Text>
    </Stack>
  );
  if (isNarrow)
    return (
      <Table.Tr>
        <Table.Td>
          <Stack gap={4}>
            {when}
            {who}
            <Text size="sm" fw={500}>
              {what}
            </Text>
            <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
              {entry.action}
            </Text>
            <Changes entry={entry} />
          </Stack>
        </Table.Td>
      </Table.Tr>
    );
  return (
    <Table.Tr>
      <Table.Td>{when}</Table.Td>
      <Table.Td>{who}</Table.Td>
      <Table.Td>
        <Text size="sm" fw={500}>
          {what}
        </Text>
        <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
          {entry.action}
        </Text>
      </Table.Td>
      <Table.Td>
        <Changes entry={entry} />
      </Table.Td>
    </Table.Tr>
  );
}

/** /settings/audit-log: every change made by a team member or the API key, with filters and a CSV export. */
export function AuditLogPage() {
  const { isReady, canRead } = useAccess(['account:write'], ['account:write']);
  const state = useListState({ actor: '', resourceType: '', from: '', to: '' });
  const filter = state.values;
  const list = useAuditLog(filter, { enabled: canRead });
  const facets = useAuditLogFacets({ enabled: canRead });
  const isNarrow = useIsNarrow('tablet');
  const entries = list.data?.pages.flatMap((page) => page.entries) ?? [];
  const isFiltered = Object.values(filter).some((value) => value !== '');
  const isBackwards = filter.from !== '' && filter.to !== '' && filter.from > filter.to;
  const actorOptions = [
    ...(facets.data?.actors ?? []).map((a) => ({ value: a.value, label: a.label })),
    ...(facets.data?.actors.some((a) => a.value === 'api-key')
      ? []
      : [{ value: 'api-key', label: 'API key' }]),
  ];
  const retention = facets.data?.retentionMonths;

  return (
    <ListPage
      title="Audit Log"
      description={`Every change made in this account by a team member or the API key: who, when, from which address, what, and what it was before. Nobody can edit or delete entries${retention ? `; they are kept ${retention} months` : ''}.`}
      actions={
        <Button
          component="a"
          href={auditLogExportUrl(filter)}
          download="audit-log.csv"
          variant="default"
          leftSection={<IconDownload size={16} />}
        >
          Export CSV
        </Button>
      }
      isReady={isReady}
      gate={seeGate(canRead, 'the audit log', 'Edit account settings')}
      notices={<RetentionSetting months={retention} />}
      toolbar={
        <Group gap="sm" align="flex-end" wrap="wrap" role="search" aria-label="Filter the audit log">
          <Select
            label="Who"
            placeholder="Anyone"
            data={actorOptions}
            value={filter.actor || null}
            onChange={(value) => state.set({ actor: value ?? '' })}
            clearable
            searchable
            w={{ base: '100%', xs: 240 }}
          />
          <Select
            label="What"
            placeholder="Anything"
            data={facets.data?.resourceTypes ?? []}
            value={filter.resourceType || null}
            onChange={(value) => state.set({ resourceType: value ?? '' })}
            clearable
            searchable
            w={{ base: '100%', xs: 220 }}
          />
          <TextInput
            label="From"
            type="date"
            value={filter.from}
            onChange={(event) => state.set({ from: event.currentTarget.value })}
            w={{ base: '100%', xs: 170 }}
          />
          <TextInput
            label="To"
            type="date"
            value={filter.to}
            onChange={(event) => state.set({ to: event.currentTarget.value })}
            error={isBackwards ? auditLogMessages.fromAfterTo : undefined}
            w={{ base: '100%', xs: 170 }}
          />
        </Group>
      }
      query={list}
      loadingLabel="Loading the audit log"
      errorFallback={auditLogMessages.couldNotLoad}
      isEmpty={entries.length === 0 && !isFiltered}
      empty={
        <EmptyState
          icon={<IconHistory size={28} />}
          title="No changes yet"
          description="Changes to settings, the team, emails, broadcasts, flows, segments and everything else show here as they are made."
        />
      }
      isNoMatch={entries.length === 0}
      noMatch={
        <EmptyState
          icon={<IconSearch size={28} />}
          title="No matching entries"
          description="No entry matches these filters."
          action={
            <Button variant="light" onClick={() => state.reset()}>
              Clear filters
            </Button>
          }
        />
      }
      pagination={
        list.hasNextPage && (
          <Group justify="center">
            <Button
              variant="default"
              onClick={() => void list.fetchNextPage()}
              loading={list.isFetchingNextPage}
            >
              Load more
            </Button>
          </Group>
        )
      }
    >
      <TableCard minWidth={isNarrow ? undefined : 900} aria-label="Audit log entries">
        <Table.Thead>
          {isNarrow ? (
            <Table.Tr>
              <Table.Th>Entry</Table.Th>
            </Table.Tr>
          ) : (
            <Table.Tr>
              <Table.Th>When</Table.Th>
              <Table.Th>Who</Table.Th>
              <Table.Th>What</Table.Th>
              <Table.Th>Before → after</Table.Th>
            </Table.Tr>
          )}
        </Table.Thead>
        <Table.Tbody>
          {entries.map((entry) => (
            <EntryRow key={entry.id} entry={entry} isNarrow={isNarrow} />
          ))}
        </Table.Tbody>
      </TableCard>
    </ListPage>
  );
}
