import { segmentMessages, type Segment } from '@herald/contracts';
import { Text, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { errorMessage } from '../../lib/api.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';
import { SegmentToolbar } from '../segments/segment-toolbar.tsx';
import type { useSegmentCount } from '../segments/segments.api.ts';
import { BulkBar, BulkProgress } from './bulk-actions.tsx';

export interface PeopleSort {
  sort: string;
  order: 'asc' | 'desc';
}

interface PeopleToolbarProps {
  segment: Segment | undefined;
  count: ReturnType<typeof useSegmentCount>;
  sort: PeopleSort;
  canWrite: boolean;
  canExport: boolean;
  notifyEmail: string;
  /** The search box (All People only). */
  search: { value: string; onChange: (value: string) => void } | null;
  selected: number[];
  isWholeSegment: boolean;
  bulkActions: number[];
  onSort: (sort: PeopleSort) => void;
  onConditions: () => void;
  onExplain: () => void;
  onWholeSegment: () => void;
  onBulkStarted: (id: number) => void;
  onBulkFinished: (id: number) => void;
  onClearSelection: () => void;
}

/** Above the people of a segment: its name, count and sort, the search (All People), running bulk actions and the bulk bar. */
export function PeopleToolbar(props: PeopleToolbarProps) {
  const { segment, count, sort, selected } = props;
  const isNarrow = useIsNarrow();
  return (
    <>
      {segment && (
        <SegmentToolbar
          segment={segment}
          count={count.data?.totalCount}
          isCounting={count.isFetching}
          sort={sort.sort}
          order={sort.order}
          canWrite={props.canWrite}
          onSort={(s, o) => props.onSort({ sort: s, order: o })}
          onConditions={props.onConditions}
          onExplain={props.onExplain}
          onWholeSegment={props.onWholeSegment}
        />
      )}
      {count.isError && (
        <Text size="sm" c="orange">
          {errorMessage(count.error, segmentMessages.previewError)}
        </Text>
      )}
      {props.search && (
        <TextInput
          aria-label="Search people"
          placeholder="Search by email or name"
          leftSection={<IconSearch size={16} />}
          value={props.search.value}
          onChange={(e) => props.search?.onChange(e.currentTarget.value)}
          w={isNarrow ? '100%' : 320}
          maxLength={200}
          type="search"
        />
      )}
      {props.bulkActions.map((id) => (
        <BulkProgress key={id} id={id} onFinished={() => props.onBulkFinished(id)} />
      ))}
      {(selected.length > 0 || (props.isWholeSegment && segment)) && (
        <BulkBar
          selected={
            selected.length > 0 || !segment
              ? selected
              : { segmentId: segment.id, name: segment.name, count: count.data?.totalCount ?? null }
          }
          canWrite={props.canWrite}
          canExport={props.canExport}
          notifyEmail={props.notifyEmail}
          onStarted={props.onBulkStarted}
          onClear={props.onClearSelection}
        />
      )}
    </>
  );
}
