import { hasScopes } from '@herald/contracts';
import { Button, Tooltip } from '@mantine/core';
import { IconTarget } from '@tabler/icons-react';
import { useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { useAccount } from '../../account/account.api.ts';
import { GoalDrawer } from './goal-drawer.tsx';
import { useFlowConversions, useFlowGoal } from './goals.api.ts';

const percent = (rate: number) => `${(rate * 100).toLocaleString(undefined, { maximumFractionDigits: 1 })}%`;

/** The flow page's "Goal" button, showing the flow's conversions and rate once it has a goal (not through a share link). */
export function GoalButton() {
  const { id } = useParams();
  const [searchParams] = useSearchParams();
  const account = useAccount();
  const [isOpen, setIsOpen] = useState(false);
  const flowId = Number(id);
  const isShared = searchParams.get('flow-read-auth') !== null;
  const enabled = Number.isInteger(flowId) && flowId > 0 && !isShared;
  const goal = useFlowGoal(flowId, { enabled });
  const conversions = useFlowConversions(flowId, { enabled: enabled && Boolean(goal.data?.conditions) });
  if (!enabled) return null;
  const accountData = account.data?.teamMember.accountData;
  const canWrite = accountData ? hasScopes(accountData, ['flows:write']) : false;
  const figures = conversions.data;
  const label = goal.data?.conditions
    ? figures
      ? `Goal: ${figures.conversions.toLocaleString()} ${figures.conversions === 1 ? 'conversion' : 'conversions'} (${percent(figures.rate)})`
      : 'Goal'
    : 'Set a goal';
  return (
    <>
      <Tooltip
        label={
          figures
            ? `${figures.conversions.toLocaleString()} of ${figures.entries.toLocaleString()} people who entered reached the goal`
            : 'End a person’s run when they reach a goal, and count conversions'
        }
        withArrow
        multiline
        w={240}
      >
        <Button
          variant="default"
          size="xs"
          leftSection={<IconTarget size={16} aria-hidden />}
          onClick={() => setIsOpen(true)}
          disabled={goal.isPending}
          data-testid="goal-button"
        >
          {label}
        </Button>
      </Tooltip>
      <GoalDrawer
        flowId={flowId}
        goal={goal.data?.conditions ?? null}
        opened={isOpen}
        readOnly={!canWrite}
        onClose={() => setIsOpen(false)}
      />
    </>
  );
}
