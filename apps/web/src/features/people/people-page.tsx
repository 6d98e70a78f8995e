import { hasScopes, peopleMessages, segmentMessages, type Person } from '@herald/contracts';
import { Button, Group, Paper, Stack, Text, TextInput } from '@mantine/core';
import { useMediaQuery, useThrottledValue } from '@mantine/hooks';
import { IconFileImport, IconFilterPlus, IconLock, IconSearch, IconUserPlus, IconUsers } from '@tabler/icons-react';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { LoadError } from '../../ui/load-error.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { useAccount } from '../account/account.api.ts';
import { ConditionsDrawer } from '../segments/conditions-drawer.tsx';
import { ExplainModal } from '../segments/explain-modal.tsx';
import type { PickedPerson } from '../segments/person-picker.tsx';
import { NewSegmentModal } from '../segments/new-segment-modal.tsx';
import { SegmentToolbar } from '../segments/segment-toolbar.tsx';
import { SegmentsColumn } from '../segments/segments-column.tsx';
import { useConditionChoices } from '../segments/use-condition-choices.ts';
import { useSegmentCount, useSegmentPeople, useSegments } from '../segments/segments.api.ts';
import { AddPersonModal } from './add-person-modal.tsx';
import { BulkBar, BulkProgress } from './bulk-actions.tsx';
import { PeopleTable, PeopleTableSkeleton } from './people-table.tsx';
import { effectiveQuery, searchThrottleMs, usePeopleSearch, usePersonFields } from './people.api.ts';
import { defaultTableFields } from './person-values.tsx';

/**
 * /people, /segments and /segments/{id}: the segment list on the left and the current segment's people
 * (All People by default) with its live count, sort, conditions, search (All People) and bulk actions.
 */
export function PeoplePage() {
  const account = useAccount();
  const { id: idParam } = useParams();
  const [searchParams, setSearchParams] = useSearchParams();
  const accountData = account.data?.teamMember.accountData;
  const canRead = accountData ? hasScopes(accountData, ['people:read']) : false;
  const canWrite = accountData ? hasScopes(accountData, ['people:write']) : false;
  const canExport = accountData ? hasScopes(accountData, ['people:export']) : false;
  const isNarrow = useMediaQuery('(max-width: 899px)') ?? false;

  const segments = useSegments({ enabled: canRead });
  const list = segments.data?.segments;
  const allPeople = list?.find((s) => s.autoType === 'allPeople');
  const current = idParam ? list?.find((s) => s.id === Number(idParam)) : allPeople;
  const isAllPeople = current !== undefined && current.autoType === 'allPeople';
  const choices = useConditionChoices(canRead, list, current?.id);

  const [input, setInput] = useState('');
  // Throttled to one search per 500 ms; fewer than 2 characters lists everyone. Search covers All People.
  const throttled = useThrottledValue(input, searchThrottleMs);
  const query = isAllPeople ? effectiveQuery(throttled) : '';
  const [sort, setSort] = useState<{ sort: string; order: 'asc' | 'desc' }>({ sort: 'createdAt', order: 'desc' });
  const isSearching = query !== '';
  const isDefaultSort = sort.sort === 'createdAt' && sort.order === 'desc';
  const search = usePeopleSearch(query, { enabled: canRead && isSearching });
  const segmentPeople = useSegmentPeople(current?.id ?? null, sort.sort, sort.order, { enabled: canRead && !isSearching });
  const count = useSegmentCount(current?.id ?? null, { enabled: canRead });
  const fields = usePersonFields({ enabled: canRead });
  const [selected, setSelected] = useState<number[]>([]);
  const [isAddOpen, setIsAddOpen] = useState(false);
  const [isNewOpen, setIsNewOpen] = useState(false);
  const [isWholeSegment, setIsWholeSegment] = useState(false);
  const [explaining, setExplaining] = useState<{ person: PickedPerson | null } | null>(null);
  const [bulkActions, setBulkActions] = useState<number[]>([]);
  const isEditing = searchParams.get('edit') === '1';
  const setEditing = (on: boolean) =>
    setSearchParams((p) => {
      if (on) p.set('edit', '1');
      else p.delete('edit');
      return p;
    });

  // Changing the segment clears the selection and the search and closes the panels.
  useEffect(() => {
    setSelected([]);
    setInput('');
    setIsWholeSegment(false);
    setExplaining(null);
  }, [idParam]);
  useEffect(() => setSelected([]), [query, sort]);

  const finishBulk = useCallback((id: number) => setBulkActions((ids) => ids.filter((x) => x !== id)), []);
  const pages = isSearching ? search.data?.pages : segmentPeople.data?.pages;
  const people: Person[] = useMemo(() => {
    const seen = new Set<number>();
    return (pages ?? []).flatMap((p) => p.users).filter((p) => (seen.has(p.id) ? false : (seen.add(p.id), true)));
  }, [pages]);
  const active = isSearching ? search : segmentPeople;

  const columns = useMemo(() => {
    const chosen = (account.data?.peopleTableFields ?? []).filter((f) => f.enabled).map((f) => f.name);
    return chosen.length > 0 ? chosen : [...defaultTableFields];
  }, [account.data?.peopleTableFields]);

  if (!account.data) return <LoadingSpinner />;

  const header = (
    <PageHeader
      title="People"
      description="Everyone in your account, grouped into segments that stay up to date by themselves."
      actions={
        canWrite && (
          <Group gap="xs">
            <Button variant="default" component={Link} to="/people/imports/new" leftSection={<IconFileImport size={16} />}>
              Import
            </Button>
            <Button variant="default" leftSection={<IconFilterPlus size={16} />} onClick={() => setIsNewOpen(true)}>
              New segment
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

  let content;
  if (segments.isError)
    content = <LoadError message={errorMessage(segments.error, segmentMessages.loadError)} onRetry={() => void segments.refetch()} />;
  else if (segments.isPending || (!isSearching && segmentPeople.isPending && current)) content = <PeopleTableSkeleton columns={columns} fields={fields.data?.items} />;
  else if (!current)
    content = (
      <EmptyState
        title="This segment does not exist"
        description="It may have been deleted. All People lists everyone in your account."
        action={
          <Button component={Link} to="/people">
            Open All People
          </Button>
        }
      />
    );
  else if (active.isError)
    content = (
      <LoadError
        message={errorMessage(active.error, isSearching ? peopleMessages.searchError : isDefaultSort ? segmentMessages.peopleError : segmentMessages.sortError)}
        onRetry={() => void active.refetch()}
      />
    );
  else if (isSearching && search.isPending) content = <LoadingSpinner label="Searching" />;
  else if (people.length === 0 && isAllPeople && !isSearching)
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
              <Button variant="default" component={Link} to="/people/imports/new" leftSection={<IconFileImport size={16} />}>
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
          {isSearching ? `No people match “${query}”.` : 'No people match these conditions yet. Membership updates by itself as people change.'}
        </Text>
      </Paper>
    );
  else
    content = (
      <Stack gap="sm">
        <PeopleTable
          people={people}
          columns={columns}
          fields={fields.data?.items}
          selected={selected}
          onSelect={setSelected}
          onExplain={isAllPeople ? undefined : (p) => setExplaining({ person: { id: p.id, label: p.email ?? `Person ${p.id}` } })}
        />
        <Group justify="space-between" wrap="wrap">
          <Text size="sm" c="dimmed">
            {people.length.toLocaleString()} {people.length === 1 ? 'person' : 'people'} shown
          </Text>
          {active.hasNextPage && (
            <Button variant="default" onClick={() => void active.fetchNextPage()} loading={active.isFetchingNextPage}>
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
        <SegmentsColumn segments={list} currentId={current?.id ?? null} canWrite={canWrite} isNarrow={isNarrow} />
        <Stack gap="sm" style={{ flex: 1, minWidth: 0 }} w={isNarrow ? '100%' : undefined}>
          {current && (
            <SegmentToolbar
              segment={current}
              count={count.data?.totalCount}
              isCounting={count.isFetching}
              sort={sort.sort}
              order={sort.order}
              canWrite={canWrite}
              onSort={(s, o) => setSort({ sort: s, order: o })}
              onConditions={() => setEditing(true)}
              onExplain={() => setExplaining({ person: null })}
              onWholeSegment={() => setIsWholeSegment(true)}
            />
          )}
          {count.isError && <Text size="sm" c="orange">{errorMessage(count.error, segmentMessages.previewError)}</Text>}
          {isAllPeople && (
            <TextInput
              aria-label="Search people"
              placeholder="Search by email or name"
              leftSection={<IconSearch size={16} />}
              value={input}
              onChange={(e) => setInput(e.currentTarget.value)}
              w={isNarrow ? '100%' : 320}
              maxLength={200}
              type="search"
            />
          )}
          {bulkActions.map((id) => (
            <BulkProgress key={id} id={id} onFinished={() => finishBulk(id)} />
          ))}
          {(selected.length > 0 || (isWholeSegment && current)) && (
            <BulkBar
              selected={selected.length > 0 || !current ? selected : { segmentId: current.id, name: current.name, count: count.data?.totalCount ?? null }}
              canWrite={canWrite}
              canExport={canExport}
              notifyEmail={account.data.teamMember.email || account.data.email}
              onStarted={(id) => setBulkActions((ids) => [...ids, id])}
              onClear={() => {
                setSelected([]);
                setIsWholeSegment(false);
              }}
            />
          )}
          {content}
        </Stack>
      </Group>
      {current && (
        <ConditionsDrawer segment={current} opened={isEditing} readOnly={!canWrite || current.autoSegment} choices={choices} onClose={() => setEditing(false)} />
      )}
      {current && (
        <ExplainModal segment={current} person={explaining?.person ?? null} opened={explaining !== null} choices={choices} onClose={() => setExplaining(null)} />
      )}
      <AddPersonModal opened={isAddOpen} onClose={() => setIsAddOpen(false)} />
      <NewSegmentModal opened={isNewOpen} onClose={() => setIsNewOpen(false)} />
    </Stack>
  );
}
