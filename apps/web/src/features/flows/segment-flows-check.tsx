import { FlowList, decodeInputFields, hasScopes, type Flow } from '@herald/contracts';
import { List, Stack, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import { useAccount } from '../account/account.api.ts';
import { flowListKey } from './flows.api.ts';

/** Triggers that start on a segment's membership, so a change to the segment changes who enters the flow. */
const segmentTriggers = new Set(['/entered-segment', '/left-segment']);

/** Active flows with an entered-segment or left-segment step on this segment. */
export function activeFlowsUsingSegment(flows: Flow[], segmentId: number): Flow[] {
  return flows.filter(
    (flow) =>
      flow.status === 'active' &&
      !flow.archived &&
      Object.values(flow.steps).some((step) => {
        if (!segmentTriggers.has(step.operationKey)) return false;
        const segment = decodeInputFields(step.inputFields).segment as { id?: unknown } | undefined;
        return segment?.id === segmentId;
      }),
  );
}

/**
 * Before saving or deleting a segment: when active flows start on it (entered / left segment), a confirm modal
 * lists them (docs/flows.md). Resolves 'no-flows' when none does (the page asks its usual question),
 * else 'confirmed' or 'cancelled'. The flows are read fresh at that moment; someone who cannot see flows, or a
 * failed read, gets 'no-flows'.
 */
export function useSegmentFlowsCheck() {
  const queryClient = useQueryClient();
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canSeeFlows = accountData ? hasScopes(accountData, ['flows:read']) : false;

  return async (
    segment: { id: number; name: string },
    action: 'save' | 'delete',
  ): Promise<'no-flows' | 'confirmed' | 'cancelled'> => {
    let using: Flow[] = [];
    if (canSeeFlows) {
      try {
        const data = await queryClient.fetchQuery({
          queryKey: flowListKey,
          queryFn: () => api.get('/integrations', { schema: FlowList }),
          staleTime: 0,
        });
        using = activeFlowsUsingSegment(data.integrations, segment.id);
      } catch {
        using = [];
      }
    }
    if (using.length === 0) return 'no-flows';
    return new Promise((resolve) => {
      let answer: 'confirmed' | 'cancelled' = 'cancelled';
      modals.openConfirmModal({
        title:
          action === 'save'
            ? `Change “${segment.name}” while flows use it?`
            : `Delete “${segment.name}” while flows use it?`,
        children: (
          <Stack gap="xs">
            <Text size="sm">
              {using.length === 1 ? 'This active flow starts' : `These ${using.length} active flows start`}{' '}
              when people enter or leave this segment:
            </Text>
            <List size="sm" data-testid="segment-flows">
              {using.map((flow) => (
                <List.Item key={flow.id}>{flow.name}</List.Item>
              ))}
            </List>
            <Text size="sm">
              {action === 'save'
                ? 'People who enter or leave it because of the new conditions start those flows.'
                : 'Those steps lose their segment and the flows stop starting from it until you choose another one.'}
            </Text>
          </Stack>
        ),
        labels: { confirm: action === 'save' ? 'Save anyway' : 'Delete anyway', cancel: 'Cancel' },
        confirmProps: { color: action === 'delete' ? 'red' : undefined },
        onConfirm: () => {
          answer = 'confirmed';
        },
        onClose: () => resolve(answer),
      });
    });
  };
}
