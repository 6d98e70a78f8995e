import { sendStepEmailId } from '@herald/contracts';
import { Badge, Group, Paper, Stack, Text, ThemeIcon, Tooltip, UnstyledButton } from '@mantine/core';
import { IconAlertTriangle, IconUsers } from '@tabler/icons-react';
import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { useStepMetrics } from '../flows.api.ts';
import { StepConversion } from '../goals/step-conversion.tsx';
import { StepIcon, stepLabel, stepTypeColors, stepTypeLabels, summariseStep } from '../step-display.tsx';
import type { EditorStep } from '../use-flow-editor.ts';
import { useCanvas } from './canvas-context.ts';

export type StepNodeData = { step: EditorStep };
export type StepNodeType = Node<StepNodeData, 'step'>;

/** Width of a step on the canvas, in flow units. */
export const stepNodeWidth = 248;

/** A send step's figures (sent, opens, clicks) from the email metrics by step; zeros until its email has gone out. */
export function SendFigures({ stepId }: { stepId: number }) {
  const stats = useStepMetrics(stepId);
  const totals = stats.data?.stats.totals;
  const figure = (value: number | undefined, label: string) => (
    <Text size="xs" c="dimmed" span>
      <Text span fw={600} c="dark.6" size="xs">
        {(value ?? 0).toLocaleString()}
      </Text>{' '}
      {label}
    </Text>
  );
  return (
    <Group gap={10} data-testid="send-figures">
      {figure(totals?.sent, 'sent')}
      {figure(totals?.uniqueOpens, 'opens')}
      {figure(totals?.uniqueClicks, 'clicks')}
    </Group>
  );
}

/** One step on the canvas: its kind, icon, label, a summary of its settings, its people and, when not set up, a warning. */
export function StepNode({ data, selected }: NodeProps<StepNodeType>) {
  const canvas = useCanvas();
  const { step } = data;
  const label = stepLabel(step.operationKey, canvas.catalogue);
  const summary = canvas.isPreviewOn
    ? summariseStep(step.operationKey, step.inputFields, canvas.names)
    : null;
  const count = step.id !== null ? (canvas.counts[String(step.id)] ?? step.peopleCount) : 0;
  const color = stepTypeColors[step.type];
  const warning = step.problem ?? (step.mustConfig ? 'Set up this step before the flow can run.' : null);
  const warningLabel = step.mustConfig ? 'Set up' : 'Problem';
  const conditions = step.linkConditions ?? [];
  const emailId = step.operationKey === '/send' ? sendStepEmailId(step.inputFields) : null;

  return (
    <Paper
      withBorder
      radius="md"
      p="sm"
      w={stepNodeWidth}
      shadow={selected ? 'md' : 'xs'}
      data-step-key={step.key}
      style={{
        borderColor: selected ? 'var(--mantine-color-indigo-6)' : undefined,
        borderLeft: `4px solid var(--mantine-color-${color}-6)`,
        opacity: step.id === null ? 0.7 : 1,
      }}
    >
      {step.type !== 'trigger' && (
        <Handle type="target" position={Position.Top} isConnectable={!canvas.isReadOnly} />
      )}
      <Stack gap={6}>
        <Group gap="xs" wrap="nowrap" align="flex-start">
          <ThemeIcon variant="light" color={color} radius="md" size={32}>
            <StepIcon operationKey={step.operationKey} />
          </ThemeIcon>
          <Stack gap={0} style={{ minWidth: 0, flex: 1 }}>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600} lh={1.3}>
              {stepTypeLabels[step.type]}
            </Text>
            <Text size="sm" fw={600} lh={1.3} truncate>
              {label}
            </Text>
          </Stack>
          {warning && (
            <Tooltip label={warning} multiline w={220} withArrow>
              <Badge
                color="yellow"
                variant="light"
                c="dark.8"
                size="sm"
                leftSection={<IconAlertTriangle size={12} color="var(--mantine-color-orange-8)" />}
                tabIndex={0}
                aria-label={`${warningLabel}: ${warning}`}
              >
                {warningLabel}
              </Badge>
            </Tooltip>
          )}
        </Group>
        {summary && (
          <Text size="xs" c="dark.4" lineClamp={2} style={{ wordBreak: 'break-word' }}>
            {summary}
          </Text>
        )}
        <Group justify="space-between" gap="xs" wrap="nowrap">
          <UnstyledButton
            className="nodrag"
            onClick={(event) => {
              event.stopPropagation();
              canvas.openPeople(step);
            }}
            disabled={step.id === null || !canvas.showFigures}
            aria-label={`${count.toLocaleString()} ${count === 1 ? 'person' : 'people'} at ${label}`}
            style={{ borderRadius: 4, padding: '1px 4px', margin: '-1px -4px' }}
          >
            <Group gap={4} wrap="nowrap">
              <IconUsers size={14} color="var(--mantine-color-gray-7)" aria-hidden />
              <Text size="xs" fw={600} c="dark.6" data-testid="step-count">
                {count.toLocaleString()}
              </Text>
            </Group>
          </UnstyledButton>
          {step.id !== null && canvas.showFigures && <StepConversion stepId={step.id} />}
          {emailId !== null && step.id !== null && canvas.showFigures && <SendFigures stepId={step.id} />}
        </Group>
      </Stack>
      {conditions.length > 0 ? (
        conditions.map((condition, index) => {
          const left = `${((index + 1) * 100) / (conditions.length + 1)}%`;
          return (
            <Handle
              key={condition}
              id={condition}
              type="source"
              position={Position.Bottom}
              style={{ left }}
              isConnectable={!canvas.isReadOnly}
              aria-label={`${condition} branch`}
            >
              <Text
                size="10px"
                fw={700}
                c="dark.6"
                style={{
                  position: 'absolute',
                  top: 8,
                  left: '50%',
                  transform: 'translateX(-50%)',
                  pointerEvents: 'none',
                  whiteSpace: 'nowrap',
                }}
              >
                {condition}
              </Text>
            </Handle>
          );
        })
      ) : (
        <Handle type="source" position={Position.Bottom} isConnectable={!canvas.isReadOnly} />
      )}
    </Paper>
  );
}
