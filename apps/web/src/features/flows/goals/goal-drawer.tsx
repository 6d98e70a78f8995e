import { flowGoalMessages, type ConditionNode } from '@herald/contracts';
import { Alert, Button, Drawer, Group, Stack, Text } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { errorMessage } from '../../../lib/api.ts';
import { notifySuccess } from '../../../lib/notify.ts';
import { ConditionList } from '../../segments/conditions-drawer.tsx';
import { GroupEditor } from '../../segments/group-editor.tsx';
import { useConditionChoices } from '../../segments/use-condition-choices.ts';
import { useSegments } from '../../segments/segments.api.ts';
import { useSetFlowGoal } from './goals.api.ts';

interface GoalDrawerProps {
  flowId: number;
  goal: ConditionNode[] | null;
  opened: boolean;
  readOnly: boolean;
  onClose: () => void;
}

/** The goal as the editor shows it: a saved top-level "any" (one OR group) opens as the top group set to "any". */
function editable(goal: ConditionNode[] | null): { nodes: ConditionNode[]; operator: 'and' | 'or' } {
  const [only] = goal ?? [];
  if (goal?.length === 1 && only?.type === 'group' && only.operator === 'or' && only.conditions.length > 1)
    return { nodes: only.conditions, operator: 'or' };
  return { nodes: goal ?? [], operator: 'and' };
}

/** The flow's goal: segment conditions (the segment editor's builder); reaching them ends a person's run as a conversion. */
export function GoalDrawer({ flowId, goal, opened, readOnly, onClose }: GoalDrawerProps) {
  const [draft, setDraft] = useState<ConditionNode[]>([]);
  const [operator, setOperator] = useState<'and' | 'or'>('and');
  const segments = useSegments({ enabled: opened });
  const choices = useConditionChoices(opened, segments.data?.segments, undefined);
  const save = useSetFlowGoal(flowId);
  const { reset } = save;

  useEffect(() => {
    if (!opened) return;
    const start = editable(goal);
    setDraft(start.nodes);
    setOperator(start.operator);
    reset();
  }, [opened, goal, reset]);

  const tree: ConditionNode[] =
    operator === 'or' && draft.length > 1 ? [{ type: 'group', operator: 'or', conditions: draft }] : draft;
  const isDirty = JSON.stringify(tree) !== JSON.stringify(goal ?? []);
  const submit = (conditions: ConditionNode[] | null) =>
    save.mutate(conditions, {
      onSuccess: ({ message }) => {
        notifySuccess(message);
        onClose();
      },
    });

  return (
    <Drawer
      opened={opened}
      onClose={onClose}
      position="right"
      size="xl"
      title={<Text fw={600}>Flow goal</Text>}
    >
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          When a person in this flow comes to match these conditions, their run ends and counts as a
          conversion for every step they passed. Herald checks whenever the person changes, within seconds.
        </Text>
        {readOnly ? (
          goal ? (
            <ConditionList nodes={goal} choices={choices} />
          ) : (
            <Text size="sm">This flow has no goal.</Text>
          )
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
            {save.isError && (
              <Alert color="red" variant="light" icon={<IconAlertCircle size={16} />} role="alert">
                {errorMessage(save.error, 'The goal could not be saved. Try again.')}
              </Alert>
            )}
            <Group justify="space-between" gap="sm" wrap="wrap">
              {goal ? (
                <Button
                  variant="subtle"
                  color="red"
                  onClick={() => submit(null)}
                  loading={save.isPending && save.variables === null}
                >
                  Remove goal
                </Button>
              ) : (
                <span />
              )}
              <Group gap="sm">
                <Button variant="default" onClick={onClose}>
                  Cancel
                </Button>
                <Button
                  onClick={() => submit(tree)}
                  disabled={!isDirty || tree.length === 0}
                  loading={save.isPending && save.variables !== null}
                >
                  Save goal
                </Button>
              </Group>
            </Group>
            {tree.length === 0 && (
              <Text size="xs" c="dimmed">
                {flowGoalMessages.emptyGoal}
              </Text>
            )}
          </>
        )}
      </Stack>
    </Drawer>
  );
}
