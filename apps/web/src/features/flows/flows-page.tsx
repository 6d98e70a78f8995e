import { flowMessages, hasScopes } from '@herald/contracts';
import { Alert, Box, Button, Group, Stack, TextInput } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconBook2, IconLock, IconPlus, IconSearch, IconSitemap } from '@tabler/icons-react';
import { useNavigate, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { usePopupParam } from '../../lib/use-popup-param.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListSkeleton } from '../../ui/list-skeleton.tsx';
import { LoadError } from '../../ui/load-error.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { useAccount } from '../account/account.api.ts';
import { FolderTree } from '../folders/folder-tree.tsx';
import { CreateFlowModal, recipesPopupValue } from './create-flow-modal.tsx';
import { useFlows } from './flows.api.ts';
import { FlowsTable } from './flows-table.tsx';

const searchParam = 'flows-search';

/** /flows: every flow of the account with its switch and people; folders on the left; ?create-flow=1 opens the create modal. */
export function FlowsPage() {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canRead = accountData ? hasScopes(accountData, ['flows:read']) : false;
  const canWrite = accountData ? hasScopes(accountData, ['flows:write']) : false;
  const flows = useFlows({ enabled: canRead });
  const createPopup = usePopupParam('create-flow');
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const isNarrow = Boolean(useMediaQuery('(max-width: 899px)'));
  const search = params.get(searchParam) ?? '';

  if (!account.data) return <LoadingSpinner />;

  const newButton = (label: string) =>
    canWrite ? (
      <Button leftSection={<IconPlus size={16} />} onClick={() => createPopup.open('1')}>
        {label}
      </Button>
    ) : undefined;
  const header = <PageHeader title="Flows" description="Automations that act when people do something: a trigger, then emails, waits, tags and branches." actions={newButton('New flow')} />;
  if (!canRead) {
    return (
      <Stack gap="lg" py="md">
        {header}
        <EmptyState icon={<IconLock size={28} />} title="You can't see flows" description="Seeing flows needs the “See flows” permission. Ask an owner of the account to give it to you." />
      </Stack>
    );
  }

  const all = (flows.data?.integrations ?? []).filter((flow) => !flow.archived);
  const query = search.trim().toLowerCase();
  const list = all.filter((flow) => !query || flow.name.toLowerCase().includes(query));

  let content;
  if (flows.isPending) content = <ListSkeleton label="Loading flows" />;
  else if (flows.isError) content = <LoadError title={flowMessages.loadError} message={errorMessage(flows.error, flowMessages.listFallback)} onRetry={() => void flows.refetch()} />;
  else if (all.length === 0)
    content = (
      <EmptyState
        icon={<IconSitemap size={28} />}
        title="No flows yet"
        description="Welcome new people, follow up on a trial, or wish a happy birthday: a flow starts on a trigger and runs for every person who meets it."
        action={
          canWrite ? (
            <Group gap="sm" justify="center">
              {newButton('Create your first flow')}
              <Button variant="light" leftSection={<IconBook2 size={16} />} onClick={() => createPopup.open(recipesPopupValue)}>
                Start from a recipe
              </Button>
            </Group>
          ) : undefined
        }
      />
    );
  else if (list.length === 0) content = <EmptyState icon={<IconSearch size={28} />} title="No flow matches" description={`Nothing named “${search.trim()}”.`} />;
  else content = <FlowsTable flows={list} canWrite={canWrite} isNarrow={isNarrow} />;

  return (
    <Stack gap="lg" py="md">
      {header}
      {!canWrite && (
        <Alert variant="light" color="gray" icon={<IconLock size={18} />}>
          You can see flows. Creating and changing them needs the “Edit flows” permission.
        </Alert>
      )}
      <Group align="flex-start" gap="lg" wrap={isNarrow ? 'wrap' : 'nowrap'}>
        <FolderTree
          folderType="flows"
          title="Flow folders"
          items={all.map((flow) => ({ id: flow.id, label: flow.name }))}
          canWrite={canWrite}
          w={isNarrow ? '100%' : 240}
          onItemClick={(item) => void navigate(`/flows/${item.id}`)}
          deleteWarning="The flows inside this folder are archived and switched off."
        />
        <Stack gap="sm" style={{ flex: 1, minWidth: 0 }} w={isNarrow ? '100%' : undefined}>
          <TextInput
            aria-label="Search flows"
            placeholder="Search by name"
            leftSection={<IconSearch size={16} />}
            value={search}
            onChange={(event) => {
              const value = event.currentTarget.value;
              setParams(
                (current) => {
                  const next = new URLSearchParams(current);
                  if (value) next.set(searchParam, value);
                  else next.delete(searchParam);
                  return next;
                },
                { replace: true },
              );
            }}
          />
          <Box>{content}</Box>
        </Stack>
      </Group>
      <CreateFlowModal />
    </Stack>
  );
}
