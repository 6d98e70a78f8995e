import { Alert, Box, Group, Stack } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { errorMessage } from '../lib/api.ts';
import { useIsNarrow } from '../lib/use-is-narrow.ts';
import { EmptyState } from './empty-state.tsx';
import { ListSkeleton } from './list-skeleton.tsx';
import { LoadError } from './load-error.tsx';
import { LoadingSpinner } from './loading-spinner.tsx';
import { PageHeader } from './page-header.tsx';

/** What a page needs to know of its query (TanStack Query's result has all of it). */
export interface PageQuery {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  refetch: () => unknown;
}

/** A page's permission gate: without `canRead`, the header and this lock message stand for the page. */
export interface PageGate {
  canRead: boolean;
  /** "You can't see …" */
  title: string;
  /** Which permission it needs, and whom to ask. */
  description: string;
}

/**
 * The gate of a page whose lock says "You can't see {what}" and "Seeing {what} needs the “{permission}”
 * permission. Ask an owner of the account to give it to you." (the permission's name as the team page shows it).
 */
export function seeGate(canRead: boolean, what: string, permission: string): PageGate {
  return {
    canRead,
    title: `You can't see ${what}`,
    description: `Seeing ${what} needs the “${permission}” permission. Ask an owner of the account to give it to you.`,
  };
}

/** The lock message of a page the user may not see. */
export function LockedState({ gate }: { gate: PageGate }) {
  return <EmptyState icon={<IconLock size={28} />} title={gate.title} description={gate.description} />;
}

export interface ListBodyProps {
  query: PageQuery;
  /** The loader's accessible name, e.g. "Loading tags". */
  loadingLabel: string;
  /** Replaces the rows of grey bars (a table of its own shape). */
  skeleton?: ReactNode;
  /** The grey bars' heights, top to bottom, instead of four rows: a compact section's one bar, a page's blocks. */
  skeletonHeights?: number[];
  /** The message when the query fails and the server says nothing better. */
  errorFallback: string;
  errorTitle?: string;
  /** Replaces the error alert and its retry, given the message: a page with its own words for a failure. */
  failure?: (message: string) => ReactNode;
  /** Shown instead of the list once loaded, e.g. the list's parent does not exist. */
  notFound?: ReactNode;
  /** The list has nothing in it at all. */
  isEmpty?: boolean;
  empty?: ReactNode;
  /** The list has items, but none passes the search and filters. */
  isNoMatch?: boolean;
  noMatch?: ReactNode;
  /** The rows: a table or cards. A function is called only once the list has loaded, told whether the screen is narrow. */
  children: ReactNode | ((isNarrow: boolean) => ReactNode);
  /** Below the rows when the list pages: "Load more" or page numbers. */
  pagination?: ReactNode;
}

/** The ladder every list goes down: loading, error with retry, not found, empty, no match, then its rows. */
export function ListBody(props: ListBodyProps) {
  const { query } = props;
  const isNarrow = useIsNarrow();
  if (query.isPending)
    return props.skeleton ?? <ListSkeleton label={props.loadingLabel} heights={props.skeletonHeights} />;
  if (query.isError) {
    const message = errorMessage(query.error, props.errorFallback);
    if (props.failure) return props.failure(message);
    return <LoadError title={props.errorTitle} message={message} onRetry={() => void query.refetch()} />;
  }
  if (props.notFound) return props.notFound;
  if (props.isEmpty) return props.empty;
  if (props.isNoMatch) return props.noMatch;
  const rows = typeof props.children === 'function' ? props.children(isNarrow) : props.children;
  if (!props.pagination) return rows;
  return (
    <Stack gap="sm">
      {rows}
      {props.pagination}
    </Stack>
  );
}

export interface ListPageProps extends ListBodyProps {
  title: ReactNode;
  description: ReactNode;
  /** The page's buttons, beside the title. Hidden while the gate is closed. */
  actions?: ReactNode;
  back?: ReactNode;
  /** Right under the header: the links between sibling pages (the email settings' tabs). */
  tabs?: ReactNode;
  /** False while the account (and so the permissions) loads. */
  isReady?: boolean;
  gate?: PageGate;
  /** What a user who may see but not change is missing ("You can see tags. Creating … needs …"). */
  readOnly?: ReactNode;
  /** Anything else between the header and the list. */
  notices?: ReactNode;
  /** Beside the list (above it on narrow screens): folders, segments. Told whether the screen is narrow. */
  sidebar?: (isNarrow: boolean) => ReactNode;
  /** Above the list: search and filters. */
  toolbar?: ReactNode;
  /** Popups and dialogs of the page. */
  after?: ReactNode;
  maw?: number;
}

/**
 * A list page: its header and actions, the permission gate, a read-only notice, an optional sidebar,
 * the search and filters, then the list's ladder (ListBody). Filters belong in the address (useListState).
 */
export function ListPage(props: ListPageProps) {
  const isNarrow = useIsNarrow();
  if (props.isReady === false) return <LoadingSpinner />;
  const isLocked = props.gate !== undefined && !props.gate.canRead;
  const header = (
    <PageHeader
      title={props.title}
      description={props.description}
      back={props.back}
      actions={isLocked ? undefined : props.actions}
    />
  );
  if (isLocked && props.gate)
    return (
      <Stack gap="lg" py="md" maw={props.maw}>
        {header}
        {props.tabs}
        <LockedState gate={props.gate} />
      </Stack>
    );
  const body = <ListBody {...props} />;
  return (
    <Stack gap="lg" py="md" maw={props.maw}>
      {header}
      {props.tabs}
      {props.readOnly && (
        <Alert variant="light" color="gray" icon={<IconLock size={18} />}>
          {props.readOnly}
        </Alert>
      )}
      {props.notices}
      {props.sidebar ? (
        <Group align="flex-start" gap="lg" wrap={isNarrow ? 'wrap' : 'nowrap'}>
          {props.sidebar(isNarrow)}
          <Stack gap="sm" style={{ flex: 1, minWidth: 0 }} w={isNarrow ? '100%' : undefined}>
            {props.toolbar}
            <Box>{body}</Box>
          </Stack>
        </Group>
      ) : (
        <>
          {props.toolbar}
          {body}
        </>
      )}
      {props.after}
    </Stack>
  );
}
