// @vitest-environment jsdom
import { cleanup, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../lib/api.ts';
import { renderAt } from '../test/render.tsx';
import { DetailPage } from './detail-page.tsx';
import { ListBody, ListPage, type PageQuery } from './list-page.tsx';

const loaded: PageQuery = { isPending: false, isError: false, error: null, refetch: () => undefined };

function Page({
  query = loaded,
  items = ['Spring sale'],
  search = '',
  canRead = true,
  canWrite = true,
}: {
  query?: PageQuery;
  items?: string[];
  search?: string;
  canRead?: boolean;
  canWrite?: boolean;
}) {
  const shown = items.filter((item) => item.toLowerCase().includes(search));
  return (
    <ListPage
      title="Things"
      description="What things are for."
      actions={<button type="button">New thing</button>}
      gate={{ canRead, title: "You can't see things", description: 'Seeing things needs a permission.' }}
      readOnly={!canWrite && 'You can see things. Changing them needs a permission.'}
      query={query}
      loadingLabel="Loading things"
      errorFallback="We couldn't load your things."
      isEmpty={items.length === 0}
      empty={<p>No things yet</p>}
      isNoMatch={shown.length === 0}
      noMatch={<p>No thing matches</p>}
    >
      <ul aria-label="Things">
        {shown.map((item) => (
          <li key={item}>{item}</li>
        ))}
      </ul>
    </ListPage>
  );
}

afterEach(cleanup);

describe('ListPage', () => {
  it('shows the header and a named loader while the list loads', () => {
    renderAt('/', <Page query={{ ...loaded, isPending: true }} />);
    expect(screen.getByRole('heading', { level: 1, name: 'Things' })).toBeTruthy();
    expect(screen.getByRole('status', { name: 'Loading things' })).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'Things' })).toBeNull();
  });

  it("shows the server's message on a failure, and tries again on request", async () => {
    const refetch = vi.fn();
    const error = new ApiError({
      statusCode: 500,
      error: 'Internal',
      message: 'Database down',
      userMessage: 'The things are resting.',
    } as never);
    renderAt('/', <Page query={{ ...loaded, isError: true, error, refetch }} />);
    expect(screen.getByRole('alert').textContent).toContain('The things are resting.');
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(refetch).toHaveBeenCalledTimes(1);
  });

  it('falls back to its own message when the failure says nothing', () => {
    renderAt('/', <Page query={{ ...loaded, isError: true, error: new Error('network') }} />);
    expect(screen.getByRole('alert').textContent).toContain("We couldn't load your things.");
  });

  it('shows the empty state when there is nothing at all', () => {
    renderAt('/', <Page items={[]} />);
    expect(screen.getByText('No things yet')).toBeTruthy();
    expect(screen.queryByText('No thing matches')).toBeNull();
  });

  it('shows the no-match state when the search hides every item', () => {
    renderAt('/', <Page search="winter" />);
    expect(screen.getByText('No thing matches')).toBeTruthy();
  });

  it('shows the rows once loaded, with the actions', () => {
    renderAt('/', <Page />);
    expect(screen.getByRole('list', { name: 'Things' }).textContent).toBe('Spring sale');
    expect(screen.getByRole('button', { name: 'New thing' })).toBeTruthy();
    expect(screen.queryByText(/You can see things/)).toBeNull();
  });

  it('says what a read-only user may not do', () => {
    renderAt('/', <Page canWrite={false} />);
    expect(screen.getByText('You can see things. Changing them needs a permission.')).toBeTruthy();
  });

  it('shows the lock and no actions nor list without the permission to see', () => {
    renderAt('/', <Page canRead={false} />);
    expect(screen.getByRole('heading', { name: "You can't see things" })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'New thing' })).toBeNull();
    expect(screen.queryByRole('list', { name: 'Things' })).toBeNull();
  });
});

describe('ListBody', () => {
  const body = (query: PageQuery, more: Partial<Parameters<typeof ListBody>[0]> = {}) => (
    <ListBody
      query={query}
      loadingLabel="Loading invoices"
      errorFallback="We couldn't load the invoices."
      {...more}
    >
      {() => <p>Rows</p>}
    </ListBody>
  );

  it('draws the grey bars at the heights it is given, under the named loader', () => {
    renderAt('/', body({ ...loaded, isPending: true }, { skeletonHeights: [36, 120] }));
    const loader = screen.getByRole('status', { name: 'Loading invoices' });
    expect(loader.children).toHaveLength(2);
    expect(screen.queryByText('Rows')).toBeNull();
  });

  it("puts a failure in the section's own words, without the retry, when told how", () => {
    const failure = (message: string) => <p role="alert">This link can’t be used: {message}</p>;
    renderAt('/', body({ ...loaded, isError: true, error: new Error('network') }, { failure }));
    expect(screen.getByRole('alert').textContent).toBe(
      "This link can’t be used: We couldn't load the invoices.",
    );
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
  });
});

describe('DetailPage', () => {
  const notFound = { title: 'Thing not found', description: 'It may have been deleted.' };
  const page = (query: PageQuery & { data: string | null | undefined }, isMissing = false) => (
    <DetailPage
      query={query}
      loadingLabel="Loading thing"
      notFound={notFound}
      errorFallback="We couldn't load the thing."
      isMissing={isMissing}
    >
      {(thing) => <h1>{thing}</h1>}
    </DetailPage>
  );

  it('shows the named loader, then the page', () => {
    renderAt('/', page({ ...loaded, isPending: true, data: undefined }));
    expect(screen.getByRole('status', { name: 'Loading thing' })).toBeTruthy();
    cleanup();
    renderAt('/', page({ ...loaded, data: 'Spring sale' }));
    expect(screen.getByRole('heading', { name: 'Spring sale' })).toBeTruthy();
  });

  it("shows the page's not-found message on a 404, an empty answer or a malformed address", () => {
    const error = new ApiError({ statusCode: 404, error: 'Not Found', message: 'No such thing' } as never);
    renderAt('/', page({ ...loaded, isError: true, error, data: undefined }));
    expect(screen.getByRole('heading', { name: 'Thing not found' })).toBeTruthy();
    cleanup();
    renderAt('/', page({ ...loaded, data: null }));
    expect(screen.getByRole('heading', { name: 'Thing not found' })).toBeTruthy();
    cleanup();
    renderAt('/', page({ ...loaded, isPending: true, data: undefined }, true));
    expect(screen.getByRole('heading', { name: 'Thing not found' })).toBeTruthy();
  });

  it('shows an error with retry on any other failure', async () => {
    const refetch = vi.fn();
    renderAt('/', page({ ...loaded, isError: true, error: new Error('network'), refetch, data: undefined }));
    expect(screen.getByRole('alert').textContent).toContain("We couldn't load the thing.");
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(refetch).toHaveBeenCalledTimes(1);
  });
});
