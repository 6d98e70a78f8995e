import { segmentMessages, type ConditionNode, type Segment } from '@herald/contracts';
import { Alert, Button, Drawer, Group, Loader, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { modals } from '@mantine/modals';
import { IconAlertCircle, IconUsers } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { useBlocker } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import type { ConditionChoices } from './condition-input.tsx';
import { conditionNames, describeNode } from './condition-text.ts';
import { GroupEditor } from './group-editor.tsx';
import { useSegmentFlowsCheck } from '../flows/segment-flows-check.tsx';
import { useConditionsCount, useSaveSegment } from './segments.api.ts';

interface ConditionsDrawerProps {
  segment: Segment;
  opened: boolean;
  readOnly: boolean;
  choices: ConditionChoices;
  onClose: () => void;
}

/** Live count of the tree being edited, 400 ms after the last change; the server's message when it is invalid. */
function LiveCount({ conditions, segmentId }: { conditions: ConditionNode[]; segmentId: number }) {
  const [debounced] = useDebouncedValue(conditions, 400);
  const count = useConditionsCount(debounced, segmentId);
  if (count.isError) {
    return (
      <Alert color="orange" variant="light" icon={<IconAlertCircle size={16} />} role="status">
        {errorMessage(count.error, segmentMessages.previewError)}
      </Alert>
    );
  }
  return (
    <Group gap="xs" role="status" aria-live="polite">
      <IconUsers size={18} />
      {count.data ? (
        <Text fw={600} data-testid="live-count">
          {count.data.totalCount.toLocaleString()}{' '}
          {count.data.totalCount === 1 ? 'person matches' : 'people match'}
          {count.data.pendingConfirmation
            ? ` (${count.data.pendingConfirmation.toLocaleString()} waiting to confirm)`
            : ''}
        </Text>
      ) : (
        <Text c="dimmed">Counting…</Text>
      )}
      {count.isFetching && <Loader size={14} />}
    </Group>
  );
}

/** The conditions editor: nested AND/OR groups, a live count, save, and a confirmation before losing changes. */
export function ConditionsDrawer({ segment, opened, readOnly, choices, onClose }: ConditionsDrawerProps) {
  const [draft, setDraft] = useState<ConditionNode[]>(segment.conditions);
  const [operator, setOperator] = useState<'and' | 'or'>('and');
  const save = useSaveSegment();
  // Opening the editor (or switching segment) starts from the saved conditions; a saved top-level
  // "any" (one OR group of several) opens as the top group set to "any".
  useEffect(() => {
    if (!opened) return;
    const [only] = segment.conditions;
    const isTopLevelOr =
      segment.conditions.length === 1 &&
      only?.type === 'group' &&
      only.operator === 'or' &&
      only.conditions.length > 1;
    setDraft(isTopLevelOr ? only.conditions : segment.conditions);
    setOperator(isTopLevelOr ? 'or' : 'and');
  }, [opened, segment.id, segment.conditions]);

  // A top-level "any" wraps the list in one OR group, since the saved list is joined by AND.
  const tree: ConditionNode[] =
    operator === 'or' && draft.length > 1 ? [{ type: 'group', operator: 'or', conditions: draft }] : draft;
  const isDirty = JSON.stringify(tree) !== JSON.stringify(segment.conditions);

  // Leaving on purpose (discarded or saved) must not ask again when the editor's own close navigates.
  const isLeaving = useRef(false);
  useEffect(() => {
    if (opened) isLeaving.current = false;
  }, [opened]);
  const leave = () => {
    isLeaving.current = true;
    onClose();
  };
  const confirmDiscard = (onDiscard: () => void, onKeep: () => void = () => undefined) => {
    let isDiscarded = false;
    modals.openConfirmModal({
      title: 'Discard your changes?',
      children: <Text size="sm">The conditions you changed have not been saved.</Text>,
      labels: { confirm: 'Discard changes', cancel: 'Keep editing' },
      confirmProps: { color: 'red' },
      onConfirm: () => {
        isDiscarded = true;
        onDiscard();
      },
      onClose: () => {
        if (!isDiscarded) onKeep();
      },
    });
  };
  const close = () => (!isDirty || readOnly ? onClose() : confirmDiscard(leave));

  // Browser back or a link elsewhere while changes are unsaved asks the same question.
  const blocker = useBlocker(() => opened && !readOnly && isDirty && !isLeaving.current);
  const blockedState = blocker.state;
  const { proceed, reset } = blocker;
  useEffect(() => {
    if (blockedState !== 'blocked' || !proceed || !reset) return;
    confirmDiscard(() => {
      isLeaving.current = true;
      proceed();
    }, reset);
    // Asked once per blocked navigation: the blocker's state and functions change only then.
  }, [blockedState, proceed, reset]);

  const checkFlows = useSegmentFlowsCheck();
  const submit = async () => {
    // Active flows that start on this segment are named first (docs/segments.md).
    if ((await checkFlows(segment, 'save')) === 'cancelled') return;
    save.mutate(
      { id: segment.id, name: segment.name, color: segment.color, conditions: tree },
      {
        onSuccess: ({ message }) => {
          notifySuccess(message || segmentMessages.saved);
          leave();
        },
        onError: (error) => notifyError(error, segmentMessages.saveError),
      },
    );
  };

  const title = readOnly ? `Conditions of ${segment.name}` : `Edit conditions of ${segment.name}`;
  // The header (title and live count) and the footer (save) stay in view while long trees scroll.
  return (
    <Drawer.Root opened={opened} onClose={close} position="right" size="xl">
      <Drawer.Overlay />
      <Drawer.Content>
        <Drawer.Header
          style={{
            flexDirection: 'column',
            alignItems: 'stretch',
            gap: 'var(--mantine-spacing-sm)',
            borderBottom: '1px solid var(--mantine-color-default-border)',
          }}
        >
          <Group justify="space-between" wrap="nowrap">
            <Drawer.Title fw={600}>{title}</Drawer.Title>
            <Drawer.CloseButton />
          </Group>
          {!readOnly && <LiveCount conditions={tree} segmentId={segment.id} />}
        </Drawer.Header>
        <Drawer.Body pt="md" pb={0}>
          {readOnly ? (
            <Stack gap="xs" pb="md">
              <Text size="sm" c="dimmed">
                {segment.autoSegment
                  ? 'This automatic segment is defined by Herald and cannot be changed.'
                  : 'You can see these conditions but not change them.'}
              </Text>
              {segment.conditions.length === 0 ? (
                <Text size="sm">Everyone who is not archived.</Text>
              ) : (
                <ConditionList nodes={segment.conditions} choices={choices} />
              )}
            </Stack>
          ) : (
            <>
              <GroupEditor
                operator={operator}
                nodes={draft}
                choices={choices}
                depth={0}
                onChange={(nodes, op) => {
                  setDraft(nodes);
                  setOperator(op);
                }}
              />
              <Group
                justify="flex-end"
                gap="sm"
                py="md"
                pos="sticky"
                bottom={0}
                bg="var(--mantine-color-body)"
                style={{ zIndex: 2 }}
              >
                <Button variant="default" onClick={close}>
                  Cancel
                </Button>
                <Button onClick={() => void submit()} loading={save.isPending} disabled={!isDirty}>
                  Save segment
                </Button>
              </Group>
            </>
          )}
        </Drawer.Body>
      </Drawer.Content>
    </Drawer.Root>
  );
}

/** A read-only list of conditions, nested. */
export function ConditionList({ nodes, choices }: { nodes: ConditionNode[]; choices: ConditionChoices }) {
  const names = conditionNames(choices);
  return (
    <Stack gap={4} component="ul" pl="md" m={0}>
      {nodes.map((node, i) => (
        <li key={i}>
          <Text size="sm">{describeNode(node, names)}</Text>
          {node.type === 'group' && <ConditionList nodes={node.conditions} choices={choices} />}
        </li>
      ))}
    </Stack>
  );
}
