import { Group, Text, Tooltip } from '@mantine/core';
import { IconTarget } from '@tabler/icons-react';
import { useParams } from 'react-router';
import { useFlowConversions, useFlowGoal } from './goals.api.ts';

/** A step's conversions on the canvas, next to its people count: runs that passed it and reached the flow's goal. */
export function StepConversion({ stepId }: { stepId: number }) {
  const flowId = Number(useParams().id);
  const goal = useFlowGoal(flowId);
  const conversions = useFlowConversions(flowId, { enabled: Boolean(goal.data?.conditions) });
  const step = conversions.data?.steps.find((s) => s.stepId === stepId);
  if (!goal.data?.conditions || !step) return null;
  const rate = step.passed === 0 ? 0 : step.converted / step.passed;
  return (
    <Tooltip
      label={`${step.converted.toLocaleString()} of ${step.passed.toLocaleString()} people who passed this step reached the goal`}
      withArrow
      multiline
      w={220}
    >
      <Group
        gap={4}
        wrap="nowrap"
        tabIndex={0}
        aria-label={`${step.converted.toLocaleString()} converted of ${step.passed.toLocaleString()} who passed`}
        data-testid="step-conversion"
      >
        <IconTarget size={14} color="var(--mantine-color-teal-8)" aria-hidden />
        <Text size="xs" fw={600} c="teal.9">
          {step.converted.toLocaleString()} ({Math.round(rate * 100)}%)
        </Text>
      </Group>
    </Tooltip>
  );
}
