import { hasScopes } from '@herald/contracts';
import { Alert, Badge, Button, Checkbox, Drawer, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { IconHistory } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import { ListBody } from '../../../ui/list-page.tsx';
import { useAccount } from '../../account/account.api.ts';
import { useFlow, useServices } from '../flows.api.ts';
import { stepLabel } from '../step-display.tsx';
import { useFlowVersions, useVersionComparison } from './flow-versions.api.ts';
import { RestoreVersionModal } from './restore-version-modal.tsx';
import { useVersionStepNames } from './use-step-names.ts';
import { VersionDiffView } from './version-diff-view.tsx';
import { useIsNarrow } from '../../../lib/use-is-narrow.ts';

const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * The flow's versions (one is saved each time the flow is switched on changed): who and when, two picked side by
 * side, and a restore behind a confirmation.
 */
export function VersionsDrawer({
  flowId,
  opened,
  onClose,
}: {
  flowId: number;
  opened: boolean;
  onClose: () => void;
}) {
  const isNarrow = useIsNarrow('tablet');
  const versions = useFlowVersions(flowId, { enabled: opened });
  const flow = useFlow(flowId);
  const services = useServices({ enabled: opened });
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canWrite = accountData ? hasScopes(accountData, ['flows:write']) : false;
  const names = useVersionStepNames(opened);
  const [picked, setPicked] = useState<number[]>([]);
  const [restoring, setRestoring] = useState<number | null>(null);
  const pair = picked.length === 2 ? { older: Math.min(...picked), newer: Math.max(...picked) } : null;
  const comparison = useVersionComparison(flowId, pair);
  const catalogue = useMemo(
    () => new Map((services.data?.steps ?? []).map((s) => [s.operationKey, s])),
    [services.data],
  );

  // Picking a third version lets go of the first one picked.
  const toggle = (number: number, checked: boolean) =>
    setPicked((current) =>
      checked
        ? [...current.filter((n) => n !== number), number].slice(-2)
        : current.filter((n) => n !== number),
    );

  const items = versions.data?.versions ?? [];
  const list = (
    <ListBody
      query={versions}
      loadingLabel="Loading versions"
      skeletonHeights={[52, 52, 52]}
      errorTitle="Couldn't load the versions."
      errorFallback="We couldn't load the versions of this flow."
      isEmpty={items.length === 0}
      empty={
        <Alert variant="light" color="gray" icon={<IconHistory size={18} />} title="No versions yet">
          A version is saved each time the flow is switched on with changes. Switch it on to save the first
          one.
        </Alert>
      }
    >
      <Stack gap="xs" component="ul" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Versions">
        {items.map((version) => {
          const isCurrent = versions.data?.matchesCurrent === version.number;
          return (
            <Paper
              component="li"
              key={version.number}
              withBorder
              radius="sm"
              p="sm"
              data-testid="flow-version"
            >
              <Group justify="space-between" wrap="wrap" gap="xs">
                <Checkbox
                  checked={picked.includes(version.number)}
                  onChange={(event) => toggle(version.number, event.currentTarget.checked)}
                  label={
                    <Group gap={6}>
                      <Text fw={600} size="sm">
                        Version {version.number}
                      </Text>
                      {isCurrent && (
                        <Badge size="xs" color="teal" variant="light" c="teal.9">
                          Current
                        </Badge>
                      )}
                    </Group>
                  }
                  aria-label={`Compare version ${version.number}`}
                />
                {canWrite && (
                  <Button
                    size="compact-xs"
                    variant="subtle"
                    disabled={isCurrent}
                    onClick={() => setRestoring(version.number)}
                  >
                    Restore
                  </Button>
                )}
              </Group>
              <Text size="xs" c="dimmed" mt={4}>
                {version.createdBy ? version.createdBy.name : 'A former team member'} ·{' '}
                {when(version.createdAt)} · {version.stepCount} steps
              </Text>
            </Paper>
          );
        })}
      </Stack>
    </ListBody>
  );

  return (
    <>
      <Drawer
        opened={opened}
        onClose={onClose}
        position="right"
        size={isNarrow ? '100%' : 'xl'}
        title={
          <Title order={2} fz="lg">
            Versions
          </Title>
        }
      >
        <Stack gap="md">
          <Text size="sm" c="dimmed">
            Switching the flow on saves what it does as a version when it changed. People already in the flow
            go on with the flow as it is now. Pick two versions to see them side by side.
          </Text>
          {list}
          {picked.length === 1 && (
            <Text size="sm" c="dimmed">
              Pick one more version to compare with version {picked[0]}.
            </Text>
          )}
          {pair && (
            <Stack gap="xs" aria-live="polite">
              <Title order={3} fz="md">
                Version {pair.older} and version {pair.newer}
              </Title>
              <ListBody
                query={comparison}
                loadingLabel="Comparing"
                skeletonHeights={[120]}
                errorFallback="We couldn't compare these versions."
              >
                {() =>
                  comparison.data && (
                    <VersionDiffView
                      diff={comparison.data.diff!}
                      newer={comparison.data.version.snapshot}
                      olderLabel={`Version ${pair.older}`}
                      newerLabel={`Version ${pair.newer}`}
                      names={names}
                      label={(operationKey) => stepLabel(operationKey, catalogue)}
                    />
                  )
                }
              </ListBody>
            </Stack>
          )}
        </Stack>
      </Drawer>
      <RestoreVersionModal
        flowId={flowId}
        number={restoring}
        isActive={flow.data?.integration.status === 'active'}
        onClose={() => setRestoring(null)}
      />
    </>
  );
}
