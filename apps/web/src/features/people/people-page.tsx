import { hasScopes, peopleMessages, segmentMessages, type Person } from '@herald/contracts';
import { Button, Group, Paper, Text } from '@mantine/core';
import { useThrottledValue } from '@mantine/hooks';
import { IconFileImport, IconFilterPlus, IconUserPlus, IconUsers } from '@tabler/icons-react';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { useListState } from '../../lib/use-list-state.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListPage, seeGate } from '../../ui/list-page.tsx';
import { useAccess } from '../account/use-access.ts';
import { ConditionsDrawer } from '../segments/conditions-drawer.tsx';
import { ExplainModal } from '../segments/explain-modal.tsx';
import type { PickedPerson } from '../segments/person-picker.tsx';
import { NewSegmentModal } from '../segments/new-segment-modal.tsx';
import { SegmentsColumn } from '../segments/segments-column.tsx';
import { useConditionChoices } from '../segments/use-condition-choices.ts';
import { useSegmentCount, useSegmentPeople, useSegments } from '../segments/segments.api.ts';
import { AddPersonModal } from './add-person-modal.tsx';
import { PeopleTable, PeopleTableSkeleton } from './people-table.tsx';
import { PeopleToolbar, type PeopleSort } from './people-toolbar.tsx';
import { effectiveQuery, searchThrottleMs, usePeopleSearch, usePersonFields } from './people.api.ts';
import { defaultTableFields } from './person-values.tsx';

/** The list's own query parameters: the search (All People) and the sort survive a reload and the back button. */
export const peopleListParams = {
  search: 'people-search',
  sort: 'people-sort',
  order: 'people-order',
} as const;

/**
 * /people, /segments and /segments/{id}: the segment list on the left and the current segment's people
 * (All People by default) with its live count, sort, conditions, search (All People) and bulk actions.
 */
export function PeoplePage() {
  const { account, isReady, canRead, canWrite } = useAccess(['people:read'], ['people:write']);
  const canExport = account.data ? hasScopes(account.data.teamMember.accountData, ['people:export']) : false;
  const { id: idParam } = useParams();
  const [searchParams, setSearchParams] = useSearchParams();

  const segments = useSegments({ enabled: canRead });
  const list = segments.data?.segments;
  const allPeople = list?.find((s) => s.autoType === 'allPeople');
  const current = idParam ? list?.find((s) => s.id === Number(idParam)) : allPeople;
  const isAllPeople = current !== undefined && current.autoType === 'allPeople';
  const choices = useConditionChoices(canRead, list, current?.id);

  const filters = useListState(
    { search: '', sort: 'createdAt', order: 'desc' },
    { params: peopleListParams },
  );
  const input = filters.values.search;
  const sort: PeopleSort = {
    sort: filters.values.sort,
    order: filters.values.order === 'asc' ? 'asc' : 'desc',
  };
  // Throttled to one search per 500 ms; fewer than 2 characters lists everyone. Search covers All People.
  const throttled = useThrottledValue(input, searchThrottleMs);
  const query = isAllPeople ? effectiveQuery(throttled) : '';
  const isSearching = query !== '';
  const isDefaultSort = sort.sort === 'createdAt' && sort.order === 'desc';
  const search = usePeopleSearch(query, { enabled: canRead && isSearching });
  const segmentPeople = useSegmentPeople(current?.id ?? null, sort.sort, sort.order, {
    enabled: canRead && !isSearching,
  });
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

  // Changing the segment clears the selection and closes the panels (the segment's link has no search).
  useEffect(() => {
    setSelected([]);
    setIsWholeSegment(false);
    setExplaining(null);
  }, [idParam]);
  useEffect(() => setSelected([]), [query, sort.sort, sort.order]);

  const finishBulk = useCallback((id: number) => setBulkActions((ids) => ids.filter((x) => x !== id)), []);
  const pages = isSearching ? search.data?.pages : segmentPeople.data?.pages;
  const people: Person[] = useMemo(() => {
    const seen = new Set<number>();
    return (pages ?? [])
      .flatMap((p) => p.users)
      .filter((p) => (seen.has(p.id) ? false : (seen.add(p.id), true)));
  }, [pages]);
  const active = isSearching ? search : segmentPeople;

  const columns = useMemo(() => {
    const chosen = (account.data?.peopleTableFields ?? []).filter((f) => f.enabled).map((f) => f.name);
    return chosen.length > 0 ? chosen : [...defaultTableFields];
  }, [account.data?.peopleTableFields]);

  const failed = segments.isError ? segments : active;
  const status = {
    isPending:
      segments.isPending ||
      (isSearching ? search.isPending : segmentPeople.isPending && current !== undefined),
    isError: segments.isError || (current !== undefined && active.isError),
    error: failed.error,
    refetch: failed.refetch,
  };

  return (
    <ListPage
      title="People"
      description="Everyone in your account, grouped into segments that stay up to date by themselves."
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
            <Button
              variant="default"
              leftSection={<IconFilterPlus size={16} />}
              onClick={() => setIsNewOpen(true)}
            >
              New segment
            </Button>
            <Button leftSection={<IconUserPlus size={16} />} onClick={() => setIsAddOpen(true)}>
              Add person
            </Button>
          </Group>
        )
      }
      isReady={isReady}
      gate={seeGate(canRead, 'people', 'See people')}
      sidebar={(isNarrow) => (
        <SegmentsColumn
          segments={list}
          currentId={current?.id ?? null}
          canWrite={canWrite}
          isNarrow={isNarrow}
        />
      )}
      toolbar={
        <PeopleToolbar
          segment={current}
          count={count}
          sort={sort}
          canWrite={canWrite}
          canExport={canExport}
          notifyEmail={account.data ? account.data.teamMember.email || account.data.email : ''}
          search={isAllPeople ? { value: input, onChange: (value) => filters.set({ search: value }) } : null}
          selected={selected}
          isWholeSegment={isWholeSegment}
          bulkActions={bulkActions}
          onSort={(next) => filters.set(next)}
          onConditions={() => setEditing(true)}
          onExplain={() => setExplaining({ person: null })}
          onWholeSegment={() => setIsWholeSegment(true)}
          onBulkStarted={(id) => setBulkActions((ids) => [...ids, id])}
          onBulkFinished={finishBulk}
          onClearSelection={() => {
            setSelected([]);
            setIsWholeSegment(false);
          }}
        />
      }
      query={status}
      loadingLabel={isSearching ? 'Searching' : 'Loading people'}
      skeleton={
        isSearching && !segments.isPending ? undefined : (
          <PeopleTableSkeleton columns={columns} fields={fields.data?.items} />
        )
      }
      errorFallback={
        segments.isError
          ? segmentMessages.loadError
          : isSearching
            ? peopleMessages.searchError
            : isDefaultSort
              ? segmentMessages.peopleError
              : segmentMessages.sortError
      }
      notFound={
        !current && (
          <EmptyState
            title="This segment does not exist"
            description="It may have been deleted. All People lists everyone in your account."
            action={
              <Button component={Link} to="/people">
                Open All People
              </Button>
            }
          />
        )
      }
      isEmpty={people.length === 0 && isAllPeople && !isSearching}
      empty={
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
      }
      isNoMatch={people.length === 0}
      noMatch={
        <Paper withBorder radius="md" p="xl">
          <Text c="dimmed" ta="center">
            {isSearching
              ? `No people match “${query}”.`
              : 'No people match these conditions yet. Membership updates by itself as people change.'}
          </Text>
        </Paper>
      }
      pagination={
        <Group justify="space-between" wrap="wrap">
          <Text size="sm" c="dimmed">
            {people.length.toLocaleString()} {people.length === 1 ? 'person' : 'people'} shown
          </Text>
          {active.hasNextPage && (
            <Button
              variant="default"
              onClick={() => void active.fetchNextPage()}
              loading={active.isFetchingNextPage}
            >
              Load more
            </Button>
          )}
        </Group>
      }
      after={
        <>
          {current && (
            <ConditionsDrawer
              segment={current}
              opened={isEditing}
              readOnly={!canWrite || current.autoSegment}
              choices={choices}
              onClose={() => setEditing(false)}
            />
          )}
          {current && (
            <ExplainModal
              segment={current}
              person={explaining?.person ?? null}
              opened={explaining !== null}
              choices={choices}
              onClose={() => setExplaining(null)}
            />
          )}
          <AddPersonModal opened={isAddOpen} onClose={() => setIsAddOpen(false)} />
          <NewSegmentModal opened={isNewOpen} onClose={() => setIsNewOpen(false)} />
        </>
      }
    >
      <PeopleTable
        people={people}
        columns={columns}
        fields={fields.data?.items}
        selected={selected}
        onSelect={setSelected}
        onExplain={
          isAllPeople
            ? undefined
            : (p) => setExplaining({ person: { id: p.id, label: p.email ?? `Person ${p.id}` } })
        }
      />
    </ListPage>
  );
}
