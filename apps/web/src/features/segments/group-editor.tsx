import { conditionTypes, type Condition, type ConditionNode } from '@herald/contracts';
import { ActionIcon, Badge, Button, Group, Menu, Paper, SegmentedControl, Stack, Text } from '@mantine/core';
import { IconFolderPlus, IconPlus, IconTrash } from '@tabler/icons-react';
import { ConditionInput, type ConditionChoices } from './condition-input.tsx';
import { conditionTypeLabels, newCondition } from './condition-text.ts';

interface GroupEditorProps {
  operator: 'and' | 'or';
  nodes: ConditionNode[];
  choices: ConditionChoices;
  depth: number;
  onChange: (nodes: ConditionNode[], operator: 'and' | 'or') => void;
  /** Shown for nested groups only: remove this group. */
  onRemove?: () => void;
}

/** An AND/OR group: its conditions and nested groups, with buttons to add either. */
export function GroupEditor({ operator, nodes, choices, depth, onChange, onRemove }: GroupEditorProps) {
  const replace = (index: number, node: ConditionNode) =>
    onChange(
      nodes.map((n, i) => (i === index ? node : n)),
      operator,
    );
  const remove = (index: number) =>
    onChange(
      nodes.filter((_, i) => i !== index),
      operator,
    );
  const add = (node: ConditionNode) => onChange([...nodes, node], operator);
  const joiner = operator === 'and' ? 'AND' : 'OR';
  return (
    <Paper withBorder radius="md" p="sm" bg={depth % 2 === 0 ? undefined : 'var(--mantine-color-gray-0)'}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap">
          <Group gap="xs">
            <Text size="sm" c="dimmed">
              Match
            </Text>
            <SegmentedControl
              size="xs"
              aria-label="Match all or any"
              data={[
                { value: 'and', label: 'all' },
                { value: 'or', label: 'any' },
              ]}
              value={operator}
              onChange={(v) => onChange(nodes, v === 'or' ? 'or' : 'and')}
            />
            <Text size="sm" c="dimmed">
              of these
            </Text>
          </Group>
          {onRemove && (
            <ActionIcon variant="subtle" color="red" aria-label="Remove group" onClick={onRemove}>
              <IconTrash size={16} />
            </ActionIcon>
          )}
        </Group>
        {nodes.length === 0 && (
          <Text size="sm" c="dimmed">
            {depth === 0
              ? 'No conditions yet: everyone who is not archived is in this segment.'
              : 'An empty group. Add a condition to it.'}
          </Text>
        )}
        {nodes.map((node, index) => (
          <Stack key={index} gap={6}>
            {index > 0 && (
              <Badge variant="light" color={operator === 'and' ? 'indigo' : 'orange'} size="sm">
                {joiner}
              </Badge>
            )}
            {node.type === 'group' ? (
              <GroupEditor
                operator={node.operator}
                nodes={node.conditions}
                choices={choices}
                depth={depth + 1}
                onChange={(conditions, op) => replace(index, { type: 'group', operator: op, conditions })}
                onRemove={() => remove(index)}
              />
            ) : (
              <Stack gap={6}>
                <Group justify="space-between" wrap="nowrap">
                  <Badge variant="outline" color="gray">
                    {conditionTypeLabels[node.type]}
                  </Badge>
                  <ActionIcon
                    variant="subtle"
                    color="gray"
                    aria-label="Remove condition"
                    onClick={() => remove(index)}
                  >
                    <IconTrash size={16} />
                  </ActionIcon>
                </Group>
                <ConditionInput
                  condition={node}
                  choices={choices}
                  onChange={(c: Condition) => replace(index, c)}
                />
              </Stack>
            )}
          </Stack>
        ))}
        <Group gap="xs">
          <Menu position="bottom-start" withinPortal>
            <Menu.Target>
              <Button variant="light" size="xs" leftSection={<IconPlus size={14} />}>
                Add condition
              </Button>
            </Menu.Target>
            <Menu.Dropdown>
              {conditionTypes.map((type) => (
                <Menu.Item key={type} onClick={() => add(newCondition(type, choices.segments[0]?.id))}>
                  {conditionTypeLabels[type]}
                </Menu.Item>
              ))}
            </Menu.Dropdown>
          </Menu>
          {depth < 3 && (
            <Button
              variant="subtle"
              size="xs"
              leftSection={<IconFolderPlus size={14} />}
              onClick={() =>
                add({ type: 'group', operator: operator === 'and' ? 'or' : 'and', conditions: [] })
              }
            >
              Add group
            </Button>
          )}
        </Group>
      </Stack>
    </Paper>
  );
}
