import { broadcastMessages } from '@herald/contracts';
import { Button } from '@mantine/core';
import { IconPlus, IconSearch, IconSpeakerphone } from '@tabler/icons-react';
import { useMemo } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { notifyError } from '../../lib/notify.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';
import { useListState } from '../../lib/use-list-state.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListFilters } from '../../ui/list-filters.tsx';
import { ListPage, seeGate } from '../../ui/list-page.tsx';
import { useAccess } from '../account/use-access.ts';
import { useEmails } from '../emails/emails.api.ts';
import { FolderTree } from '../folders/folder-tree.tsx';
import { useBroadcasts, useCreateBroadcast, type ArchivedFilter } from './broadcasts.api.ts';
import { BroadcastsTable } from './broadcasts-table.tsx';

/** The list's own query parameters: they survive opening a broadcast and coming back (docs/broadcasts-and-sending.md). */
export const listParams = {
  archived: 'broadcasts-archived',
  search: 'broadcasts-search',
  folderItem: 'broadcasts-folder-item',
} as const;

/** /broadcasts: the account's broadcasts with their status, email, recipients and time; active or archived, searchable. */
export function BroadcastsPage() {
  const { isReady, canRead, canWrite } = useAccess(['broadcasts:read'], ['broadcasts:write']);
  const filters = useListState({ archived: false, search: '', folderItem: 0 }, { params: listParams });
  const archived: ArchivedFilter = filters.values.archived ? 'true' : 'false';
  const { search, folderItem } = filters.values;
  const broadcasts = useBroadcasts(archived, { enabled: canRead });
  const emails = useEmails('false', { enabled: canRead });
  const create = useCreateBroadcast();
  const navigate = useNavigate();
  const location = useLocation();
  const isNarrow = useIsNarrow();
  const emailNames = useMemo(
    () => new Map((emails.data?.emails ?? []).map((email) => [email.id, email.name])),
    [emails.data],
  );

  const createBroadcast = () =>
    create.mutate(
      { name: broadcastMessages.defaultName },
      {
        onSuccess: ({ item }) => void navigate(`/broadcasts/${item.id}${location.search}`),
        onError: (error) => notifyError(error, broadcastMessages.createError),
      },
    );

  const newButton = (label: string) =>
    canWrite ? (
      <Button leftSection={<IconPlus size={16} />} onClick={createBroadcast} loading={create.isPending}>
        {label}
      </Button>
    ) : undefined;
  const all = broadcasts.data?.items ?? [];
  const query = search.trim().toLowerCase();
  const list = all.filter(
    (item) =>
      !query ||
      item.name.toLowerCase().includes(query) ||
      (item.emailId !== null && (emailNames.get(item.emailId) ?? '').toLowerCase().includes(query)),
  );

  return (
    <ListPage
      title="Broadcasts"
      description="One-off emails to everyone, a segment or a tag — sent now or at a time you pick."
      actions={newButton('New Broadcast')}
      isReady={isReady}
      gate={seeGate(canRead, 'broadcasts', 'See broadcasts')}
      readOnly={
        !canWrite &&
        'You can see broadcasts. Creating and sending them needs the “Edit broadcasts” permission.'
      }
      sidebar={(narrow) => (
        <FolderTree
          folderType="broadcasts"
          title="Broadcast folders"
          items={(archived === 'false' ? all : []).map((item) => ({
            id: item.id,
            label: item.name,
            isCurrent: item.id === folderItem,
          }))}
          canWrite={canWrite}
          w={narrow ? '100%' : 240}
          onItemClick={(item) => {
            const next = new URLSearchParams(location.search);
            next.set(listParams.folderItem, String(item.id));
            void navigate(`/broadcasts/${item.id}?${next.toString()}`);
          }}
          deleteWarning="The broadcasts inside this folder are archived; you can still find them under Archived."
        />
      )}
      toolbar={
        <ListFilters
          searchLabel="Search broadcasts"
          placeholder="Search by name or email"
          search={search}
          onSearch={(value) => filters.set({ search: value })}
          archived={{
            label: 'Which broadcasts',
            value: filters.values.archived,
            onChange: (value) => filters.set({ archived: value }),
          }}
        />
      }
      query={broadcasts}
      loadingLabel="Loading broadcasts"
      errorFallback={broadcastMessages.loadError}
      isEmpty={all.length === 0}
      empty={
        archived === 'true' ? (
          <EmptyState
            icon={<IconSpeakerphone size={28} />}
            title="No archived broadcasts"
            description="Broadcasts you archive land here."
          />
        ) : (
          <EmptyState
            icon={<IconSpeakerphone size={28} />}
            title="No broadcasts yet"
            description="Announce a launch, send a newsletter or share news: pick an email, choose who gets it, and send it now or later."
            action={newButton('Create your first broadcast')}
          />
        )
      }
      isNoMatch={list.length === 0}
      noMatch={
        <EmptyState
          icon={<IconSearch size={28} />}
          title="No broadcast matches"
          description={`Nothing named “${search.trim()}” or sending an email of that name.`}
        />
      }
    >
      <BroadcastsTable
        broadcasts={list}
        emailNames={emailNames}
        canWrite={canWrite}
        isNarrow={isNarrow}
        search={location.search}
      />
    </ListPage>
  );
}
