import { broadcastMessages, hasScopes } from '@herald/contracts';
import { Alert, Box, Button, Group, SegmentedControl, Stack, TextInput } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconLock, IconPlus, IconSearch, IconSpeakerphone } from '@tabler/icons-react';
import { useMemo } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { notifyError } from '../../lib/notify.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { LoadError } from '../../ui/load-error.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { useAccount } from '../account/account.api.ts';
import { useEmails } from '../emails/emails.api.ts';
import { FolderTree } from '../folders/folder-tree.tsx';
import { useBroadcasts, useCreateBroadcast, type ArchivedFilter } from './broadcasts.api.ts';
import { BroadcastsTable } from './broadcasts-table.tsx';
import { ListSkeleton } from '../../ui/list-skeleton.tsx';

/** The list's own query parameters: they survive opening a broadcast and coming back (work-areas.md §2). */
export const listParams = { archived: 'broadcasts-archived', search: 'broadcasts-search', folderItem: 'broadcasts-folder-item' } as const;

/** /broadcasts: the account's broadcasts with their status, email, recipients and time; active or archived, searchable. */
export function BroadcastsPage() {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canRead = accountData ? hasScopes(accountData, ['broadcasts:read']) : false;
  const canWrite = accountData ? hasScopes(accountData, ['broadcasts:write']) : false;
  const [params, setParams] = useSearchParams();
  const archived: ArchivedFilter = params.get(listParams.archived) === 'true' ? 'true' : 'false';
  const search = params.get(listParams.search) ?? '';
  const broadcasts = useBroadcasts(archived, { enabled: canRead });
  const emails = useEmails('false', { enabled: canRead });
  const create = useCreateBroadcast();
  const navigate = useNavigate();
  const location = useLocation();
  const isNarrow = useMediaQuery('(max-width: 899px)');
  const emailNames = useMemo(() => new Map((emails.data?.emails ?? []).map((email) => [email.id, email.name])), [emails.data]);

  const setParam = (name: string, value: string | null) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value) next.set(name, value);
        else next.delete(name);
        return next;
      },
      { replace: true },
    );

  const createBroadcast = () =>
    create.mutate(
      { name: broadcastMessages.defaultName },
      {
        onSuccess: ({ item }) => void navigate(`/broadcasts/${item.id}${location.search}`),
        onError: (error) => notifyError(error, broadcastMessages.createError),
      },
    );

  if (!account.data) return <LoadingSpinner />;

  const newButton = (label: string) =>
    canWrite ? (
      <Button leftSection={<IconPlus size={16} />} onClick={createBroadcast} loading={create.isPending}>
        {label}
      </Button>
    ) : undefined;
  const header = <PageHeader title="Broadcasts" description="One-off emails to everyone, a segment or a tag — sent now or at a time you pick." actions={newButton('New Broadcast')} />;
  if (!canRead) {
    return (
      <Stack gap="lg" py="md">
        {header}
        <EmptyState icon={<IconLock size={28} />} title="You can't see broadcasts" description="Seeing broadcasts needs the “See broadcasts” permission. Ask an owner of the account to give it to you." />
      </Stack>
    );
  }

  const all = broadcasts.data?.items ?? [];
  const query = search.trim().toLowerCase();
  const list = all.filter((item) => !query || item.name.toLowerCase().includes(query) || (item.emailId !== null && (emailNames.get(item.emailId) ?? '').toLowerCase().includes(query)));

  let content;
  if (broadcasts.isPending)
    content = <ListSkeleton label="Loading broadcasts" />;
  else if (broadcasts.isError) content = <LoadError message={errorMessage(broadcasts.error, broadcastMessages.loadError)} onRetry={() => void broadcasts.refetch()} />;
  else if (all.length === 0)
    content =
      archived === 'true' ? (
        <EmptyState icon={<IconSpeakerphone size={28} />} title="No archived broadcasts" description="Broadcasts you archive land here." />
      ) : (
        <EmptyState
          icon={<IconSpeakerphone size={28} />}
          title="No broadcasts yet"
          description="Announce a launch, send a newsletter or share news: pick an email, choose who gets it, and send it now or later."
          action={newButton('Create your first broadcast')}
        />
      );
  else if (list.length === 0) content = <EmptyState icon={<IconSearch size={28} />} title="No broadcast matches" description={`Nothing named “${search.trim()}” or sending an email of that name.`} />;
  else content = <BroadcastsTable broadcasts={list} emailNames={emailNames} canWrite={canWrite} isNarrow={Boolean(isNarrow)} search={location.search} />;

  const folderItem = Number(params.get(listParams.folderItem));
  return (
    <Stack gap="lg" py="md">
      {header}
      {!canWrite && (
        <Alert variant="light" color="gray" icon={<IconLock size={18} />}>
          You can see broadcasts. Creating and sending them needs the “Edit broadcasts” permission.
        </Alert>
      )}
      <Group align="flex-start" gap="lg" wrap={isNarrow ? 'wrap' : 'nowrap'}>
        <FolderTree
          folderType="broadcasts"
          title="Broadcast folders"
          items={(archived === 'false' ? all : []).map((item) => ({ id: item.id, label: item.name, isCurrent: item.id === folderItem }))}
          canWrite={canWrite}
          w={isNarrow ? '100%' : 240}
          onItemClick={(item) => {
            const next = new URLSearchParams(location.search);
            next.set(listParams.folderItem, String(item.id));
            void navigate(`/broadcasts/${item.id}?${next.toString()}`);
          }}
          deleteWarning="The broadcasts inside this folder are archived; you can still find them under Archived."
        />
        <Stack gap="sm" style={{ flex: 1, minWidth: 0 }} w={isNarrow ? '100%' : undefined}>
          <Group gap="sm" wrap="wrap">
            <TextInput
              aria-label="Search broadcasts"
              placeholder="Search by name or email"
              leftSection={<IconSearch size={16} />}
              value={search}
              onChange={(event) => setParam(listParams.search, event.currentTarget.value)}
              style={{ flex: 1, minWidth: 200 }}
            />
            <SegmentedControl
              aria-label="Which broadcasts"
              value={archived}
              onChange={(value) => setParam(listParams.archived, value === 'true' ? 'true' : null)}
              data={[
                { value: 'false', label: 'Active' },
                { value: 'true', label: 'Archived' },
              ]}
            />
          </Group>
          <Box>{content}</Box>
        </Stack>
      </Group>
    </Stack>
  );
}
