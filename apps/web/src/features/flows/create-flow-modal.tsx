import { flowLimits, flowMessages } from '@herald/contracts';
import { Button, Group, Modal, Stack, Tabs, Text, TextInput } from '@mantine/core';
import { IconBook2, IconPencilPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { notifyError } from '../../lib/notify.ts';
import { usePopupParam } from '../../lib/use-popup-param.ts';
import { useCreateFlow } from './flows.api.ts';
import { RecipeGallery } from './recipes/recipe-gallery.tsx';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';

/** ?create-flow= value that opens the modal on the recipe gallery (1 opens it on "Start from scratch"). */
export const recipesPopupValue = 'recipes';

/**
 * The create-flow modal, open while the address has ?create-flow=… (docs/flows.md): start from scratch with a
 * name, or from a recipe of the gallery; either way the new flow opens.
 */
export function CreateFlowModal() {
  const popup = usePopupParam('create-flow');
  const [name, setName] = useState('');
  const create = useCreateFlow();
  const navigate = useNavigate();
  const isNarrow = useIsNarrow('tablet');
  const tab = popup.value === recipesPopupValue ? 'recipes' : 'scratch';
  const submit = () =>
    create.mutate(
      { name: name.trim() || flowMessages.defaultName },
      {
        onSuccess: ({ integration }) => {
          setName('');
          void navigate(`/flows/${integration.id}`);
        },
        onError: (error) => notifyError(error, flowMessages.createError),
      },
    );
  return (
    <Modal
      opened={popup.value !== null}
      onClose={popup.close}
      title="New flow"
      size={tab === 'recipes' ? 'xl' : 'lg'}
      fullScreen={isNarrow}
    >
      <Tabs
        value={tab}
        onChange={(value) => popup.open(value === 'recipes' ? recipesPopupValue : '1')}
        keepMounted={false}
      >
        <Tabs.List mb="md">
          <Tabs.Tab value="scratch" leftSection={<IconPencilPlus size={16} aria-hidden />}>
            Start from scratch
          </Tabs.Tab>
          <Tabs.Tab value="recipes" leftSection={<IconBook2 size={16} aria-hidden />}>
            Start from a recipe
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="scratch">
          <form
            onSubmit={(event) => {
              event.preventDefault();
              submit();
            }}
          >
            <Stack gap="md">
              <TextInput
                label="Name"
                description="Only your team sees it."
                placeholder={flowMessages.defaultName}
                maxLength={flowLimits.maxNameLength}
                value={name}
                onChange={(event) => setName(event.currentTarget.value)}
                data-autofocus
              />
              <Group justify="flex-end" gap="xs">
                <Button variant="default" onClick={popup.close}>
                  Cancel
                </Button>
                <Button type="submit" loading={create.isPending}>
                  Create flow
                </Button>
              </Group>
            </Stack>
          </form>
        </Tabs.Panel>
        <Tabs.Panel value="recipes">
          <Stack gap="sm">
            <Text size="sm" c="dimmed">
              A recipe creates the whole flow, switched off, with its emails as drafts you can edit. Check
              them, then switch the flow on.
            </Text>
            <RecipeGallery />
          </Stack>
        </Tabs.Panel>
      </Tabs>
    </Modal>
  );
}
