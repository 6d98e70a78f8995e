import { flowLimits, type FlowStatus } from '@herald/contracts';
import {
  ActionIcon,
  Anchor,
  Badge,
  Group,
  Loader,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconArrowLeft, IconCheck, IconPencil } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { isFlowOn } from './flows.api.ts';
import { GoalButton } from './goals/goal-button.tsx';
import { SimulateButton } from './simulator/simulate-button.tsx';
import { VersionsButton } from './versions/versions-button.tsx';

interface FlowHeaderProps {
  name: string;
  status: FlowStatus;
  isReadOnly: boolean;
  /** Opened through a share link: nothing is saved and the flow cannot be switched, so neither is shown. */
  isShared?: boolean;
  isStatusChanging: boolean;
  pendingSaves: number;
  onRename: (name: string) => void;
  onToggle: (on: boolean) => void;
}

/** Why a flow is off, when it was not switched off by a person. */
export const statusText: Record<FlowStatus, string> = {
  active: 'Active',
  'deactivated-user': 'Off',
  deactivated: 'Stopped by Herald',
  'deactivated-expired-auth': 'Stopped: a connection expired',
};

/** The flow's name (click to rename; Enter or leaving the field saves), its on/off switch and whether saves are pending. */
export function FlowHeader({
  name,
  status,
  isReadOnly,
  isShared = false,
  isStatusChanging,
  pendingSaves,
  onRename,
  onToggle,
}: FlowHeaderProps) {
  const [isRenaming, setIsRenaming] = useState(false);
  const [draft, setDraft] = useState(name);
  useEffect(() => setDraft(name), [name]);
  const commit = () => {
    setIsRenaming(false);
    const trimmed = draft.trim();
    if (!trimmed) return setDraft(name);
    if (trimmed !== name) onRename(trimmed);
  };

  return (
    <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
      <Stack gap={4} style={{ minWidth: 0, flex: '1 1 260px' }}>
        <Anchor component={Link} to="/flows" size="sm" c="dimmed">
          <Group gap={4} component="span">
            <IconArrowLeft size={14} aria-hidden />
            Flows
          </Group>
        </Anchor>
        {isRenaming ? (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              commit();
            }}
          >
            <TextInput
              aria-label="Flow name"
              value={draft}
              maxLength={flowLimits.maxNameLength}
              onChange={(event) => setDraft(event.currentTarget.value)}
              onBlur={commit}
              onKeyDown={(event) => {
                if (event.key === 'Escape') {
                  setDraft(name);
                  setIsRenaming(false);
                }
              }}
              size="md"
              maw={480}
              autoFocus
            />
          </form>
        ) : (
          <Group gap="xs" wrap="nowrap">
            <Title order={1} fz={26} style={{ wordBreak: 'break-word' }}>
              {name}
            </Title>
            {!isReadOnly && (
              <Tooltip label="Rename" withArrow>
                <ActionIcon
                  variant="subtle"
                  color="gray"
                  aria-label="Rename flow"
                  onClick={() => setIsRenaming(true)}
                >
                  <IconPencil size={16} />
                </ActionIcon>
              </Tooltip>
            )}
          </Group>
        )}
      </Stack>
      {isShared ? (
        <Badge variant="light" color="gray" size="lg" data-testid="shared-badge">
          Shared flow · read-only
        </Badge>
      ) : (
        <Group gap="md" wrap="wrap">
          <Group gap={6} aria-live="polite" data-testid="save-state">
            {pendingSaves > 0 ? (
              <>
                <Loader size={14} aria-hidden />
                <Text size="sm" c="dimmed">
                  Saving…
                </Text>
              </>
            ) : (
              <>
                <IconCheck size={14} color="var(--mantine-color-teal-7)" aria-hidden />
                <Text size="sm" c="dimmed">
                  All changes saved
                </Text>
              </>
            )}
          </Group>
          <SimulateButton />
          <GoalButton />
          <VersionsButton />
          <Switch
            size="md"
            label="Active"
            description={
              status === 'active' || status === 'deactivated-user' ? undefined : statusText[status]
            }
            checked={isFlowOn(status)}
            disabled={isReadOnly || isStatusChanging}
            onChange={(event) => onToggle(event.currentTarget.checked)}
            color="teal"
          />
        </Group>
      )}
    </Group>
  );
}
