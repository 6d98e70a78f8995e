import { flowMessages } from '@herald/contracts';
import { Button, Group } from '@mantine/core';
import { IconBook2, IconPlus, IconSearch, IconSitemap } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import { useListState } from '../../lib/use-list-state.ts';
import { usePopupParam } from '../../lib/use-popup-param.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListFilters } from '../../ui/list-filters.tsx';
import { ListPage, seeGate } from '../../ui/list-page.tsx';
import { useAccess } from '../account/use-access.ts';
import { FolderTree } from '../folders/folder-tree.tsx';
import { CreateFlowModal, recipesPopupValue } from './create-flow-modal.tsx';
import { useFlows } from './flows.api.ts';
import { FlowsTable } from './flows-table.tsx';

/** The list's own query parameters: they survive opening a flow and coming back. */
export const flowListParams = { archived: 'flows-archived', search: 'flows-search' } as const;

/** /flows: every flow of the account with its switch and people, or the archived ones; folders on the left; ?create-flow=1 opens the create modal. */
export function FlowsPage() {
  const { isReady, canRead, canWrite } = useAccess(['flows:read'], ['flows:write']);
  const filters = useListState({ archived: false, search: '' }, { params: flowListParams });
  const { archived, search } = filters.values;
  const flows = useFlows({ enabled: canRead, archived });
  const createPopup = usePopupParam('create-flow');
  const navigate = useNavigate();

  const newButton = (label: string) =>
    canWrite ? (
      <Button leftSection={<IconPlus size={16} />} onClick={() => createPopup.open('1')}>
        {label}
      </Button>
    ) : undefined;
  const all = (flows.data?.integrations ?? []).filter((flow) => flow.archived === archived);
  const query = search.trim().toLowerCase();
  const list = all.filter((flow) => !query || flow.name.toLowerCase().includes(query));

  return (
    <ListPage
      title="Flows"
      description="Automations that act when people do something: a trigger, then emails, waits, tags and branches."
      actions={newButton('New flow')}
      isReady={isReady}
      gate={seeGate(canRead, 'flows', 'See flows')}
      readOnly={
        !canWrite && 'You can see flows. Creating and changing them needs the “Edit flows” permission.'
      }
      sidebar={(isNarrow) => (
        <FolderTree
          folderType="flows"
          title="Flow folders"
          items={(archived ? [] : all).map((flow) => ({ id: flow.id, label: flow.name }))}
          canWrite={canWrite}
          w={isNarrow ? '100%' : 240}
          onItemClick={(item) => void navigate(`/flows/${item.id}`)}
          deleteWarning="The flows inside this folder are archived and switched off."
        />
      )}
      toolbar={
        <ListFilters
          searchLabel="Search flows"
          placeholder="Search by name"
          search={search}
          onSearch={(value) => filters.set({ search: value })}
          archived={{
            label: 'Which flows',
            value: filters.values.archived,
            onChange: (value) => filters.set({ archived: value }),
          }}
        />
      }
      query={flows}
      loadingLabel="Loading flows"
      errorTitle={flowMessages.loadError}
      errorFallback={flowMessages.listFallback}
      isEmpty={all.length === 0}
      empty={
        archived ? (
          <EmptyState
            icon={<IconSitemap size={28} />}
            title="No archived flows"
            description="Flows you archive land here, switched off; you can restore them at any time."
          />
        ) : (
          <EmptyState
            icon={<IconSitemap size={28} />}
            title="No flows yet"
            description="Welcome new people, follow up on a trial, or wish a happy birthday: a flow starts on a trigger and runs for every person who meets it."
            action={
              canWrite ? (
                <Group gap="sm" justify="center">
                  {newButton('Create your first flow')}
                  <Button
                    variant="light"
                    leftSection={<IconBook2 size={16} />}
                    onClick={() => createPopup.open(recipesPopupValue)}
                  >
                    Start from a recipe
                  </Button>
                </Group>
              ) : undefined
            }
          />
        )
      }
      isNoMatch={list.length === 0}
      noMatch={
        <EmptyState
          icon={<IconSearch size={28} />}
          title="No flow matches"
          description={`Nothing named “${search.trim()}”.`}
        />
      }
      after={<CreateFlowModal />}
    >
      {(isNarrow) => (
        <FlowsTable flows={list} canWrite={canWrite} isNarrow={isNarrow} isArchived={archived} />
      )}
    </ListPage>
  );
}
