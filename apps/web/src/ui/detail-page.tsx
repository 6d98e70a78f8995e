import { Button, Skeleton, Stack } from '@mantine/core';
import { Link } from 'react-router';
import type { ReactNode } from 'react';
import { errorMessage, isApiError } from '../lib/api.ts';
import { EmptyState } from './empty-state.tsx';
import { LockedState, type PageGate, type PageQuery } from './list-page.tsx';
import { LoadError } from './load-error.tsx';
import { LoadingSpinner } from './loading-spinner.tsx';

export interface DetailQuery<T> extends PageQuery {
  data: T | undefined;
}

/** What a detail page says when its item is not there: the spec's message for that item. */
export interface NotFoundMessage {
  title: string;
  description: ReactNode;
  icon?: ReactNode;
  /** The way back to the list: a button to `to`. */
  back?: { to: string; label: string; variant?: 'light' | 'default' };
}

/** Whether an id read from the address cannot name an item (not a whole number above 0). */
export function isBadId(id: number): boolean {
  return !Number.isInteger(id) || id <= 0;
}

/** A page's grey shapes while it loads, named for screen readers: a title, then blocks of these heights. */
export function DetailSkeleton({ label, heights }: { label: string; heights: number[] }) {
  return (
    <Stack gap="md" py="md" role="status" aria-label={label}>
      <Skeleton h={36} w={320} />
      {heights.map((height, index) => (
        <Skeleton key={index} h={height} />
      ))}
    </Stack>
  );
}

export interface DetailPageProps<T> {
  query: DetailQuery<T>;
  /** The loader's accessible name, e.g. "Loading person". */
  loadingLabel: string;
  /** Replaces the spinner: a page's own grey shapes, named with `loadingLabel`. */
  skeleton?: ReactNode;
  /** False while the account (and so the permissions) loads. */
  isReady?: boolean;
  gate?: PageGate;
  /** The address names no item (a malformed id), or the answer is empty: not found without asking. */
  isMissing?: boolean;
  notFound: NotFoundMessage;
  errorFallback: string;
  errorTitle?: string;
  /** Above the lock, not-found and error messages: the way back, or the page's header. */
  top?: ReactNode;
  maw?: number;
  /** The page, once its item has loaded. */
  children: (item: NonNullable<T>) => ReactNode;
}

/** Whether a failed query failed because the item does not exist (or is not this account's). */
export function isNotFoundError(error: unknown): boolean {
  return isApiError(error) && error.statusCode === 404;
}

/**
 * One item's page: a spinner while the account or the item loads, the lock when the user may not see
 * it, the not-found message on a 404 (or a malformed address), an error with retry, then the page.
 */
export function DetailPage<T>(props: DetailPageProps<T>) {
  const { query } = props;
  const frame = (content: ReactNode) =>
    props.top === undefined && props.maw === undefined ? (
      content
    ) : (
      <Stack gap="lg" py="md" maw={props.maw}>
        {props.top}
        {content}
      </Stack>
    );
  if (props.isReady === false) return <LoadingSpinner />;
  if (props.gate && !props.gate.canRead) return frame(<LockedState gate={props.gate} />);
  const item = query.data;
  const isLoadedEmpty = !query.isPending && !query.isError && (item === null || item === undefined);
  if (props.isMissing || isNotFoundError(query.error) || isLoadedEmpty) {
    const { title, description, icon, back } = props.notFound;
    const action = back && (
      <Button component={Link} to={back.to} variant={back.variant ?? 'light'}>
        {back.label}
      </Button>
    );
    return frame(<EmptyState icon={icon} title={title} description={description} action={action} />);
  }
  if (query.isError)
    return frame(
      <LoadError
        title={props.errorTitle}
        message={errorMessage(query.error, props.errorFallback)}
        onRetry={() => void query.refetch()}
      />,
    );
  if (query.isPending || item === null || item === undefined)
    return props.skeleton ?? <LoadingSpinner label={props.loadingLabel} />;
  return props.children(item);
}
