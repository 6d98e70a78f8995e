import { flowLimits, flowMessages, type Flow } from '@herald/contracts';
import {
  ActionIcon,
  Alert,
  Button,
  Group,
  Menu,
  Modal,
  NumberInput,
  Popover,
  Radio,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconArchive, IconCopy, IconDots, IconRepeat, IconShare } from '@tabler/icons-react';
import { CopyButton } from '../../ui/copy-button.tsx';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { CopyFlowDialog } from './copy-flow-dialog.tsx';
import { useShareToken, useUpdateFlow } from './flows.api.ts';

/** Who may enter again: once per flow, or again N days after their last entry. */
export function ReentrySetting({ flow, isReadOnly }: { flow: Flow; isReadOnly: boolean }) {
  const update = useUpdateFlow();
  const [opened, setOpened] = useState(false);
  const [mode, setMode] = useState(flow.reentry);
  const [days, setDays] = useState<number>(flow.reentryDays ?? 30);
  useEffect(() => {
    setMode(flow.reentry);
    setDays(flow.reentryDays ?? 30);
  }, [flow.reentry, flow.reentryDays, opened]);

  const summary =
    flow.reentry === 'once'
      ? 'People enter once'
      : `Again after ${flow.reentryDays} ${flow.reentryDays === 1 ? 'day' : 'days'}`;
  const save = () =>
    update.mutate(
      {
        id: flow.id,
        changes: mode === 'once' ? { reentry: 'once' } : { reentry: 'after-days', reentryDays: days },
      },
      {
        onSuccess: () => {
          setOpened(false);
          notifySuccess('Re-entry rule saved.');
        },
        onError: (error) => notifyError(error, flowMessages.updateFallback),
      },
    );

  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-end" withArrow shadow="md" trapFocus>
      <Popover.Target>
        <Button
          variant="default"
          size="xs"
          leftSection={<IconRepeat size={14} />}
          onClick={() => setOpened((o) => !o)}
          aria-label={`Re-entry: ${summary}`}
        >
          {summary}
        </Button>
      </Popover.Target>
      <Popover.Dropdown w={300}>
        <Stack gap="sm">
          <Radio.Group
            label="Can a person go through this flow again?"
            value={mode}
            onChange={(value) => setMode(value === 'after-days' ? 'after-days' : 'once')}
          >
            <Stack gap={6} mt={6}>
              <Radio value="once" label="No, once only" disabled={isReadOnly} />
              <Radio value="after-days" label="Yes, after some days" disabled={isReadOnly} />
            </Stack>
          </Radio.Group>
          {mode === 'after-days' && (
            <NumberInput
              label="Days since their last entry"
              min={1}
              max={flowLimits.maxReentryDays}
              value={days}
              readOnly={isReadOnly}
              onChange={(n) =>
                setDays(Math.min(flowLimits.maxReentryDays, Math.max(1, Math.trunc(Number(n) || 1))))
              }
            />
          )}
          <Text size="xs" c="dimmed">
            Someone still in the flow never enters it a second time at once.
          </Text>
          {!isReadOnly && (
            <Group justify="flex-end">
              <Button size="xs" onClick={save} loading={update.isPending}>
                Save
              </Button>
            </Group>
          )}
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

/** The editor's '…' menu: copy the flow, or archive it (it leaves the list and is switched off). */
export function FlowMenu({ flow }: { flow: Flow }) {
  const update = useUpdateFlow();
  const [isCopying, setIsCopying] = useState(false);
  const [isSharing, setIsSharing] = useState(false);
  const navigate = useNavigate();
  const confirmArchive = () =>
    modals.openConfirmModal({
      title: `Archive “${flow.name}”?`,
      children: (
        <Text size="sm">
          {flow.status === 'active'
            ? 'The flow is switched off and leaves the list; people waiting in it stop where they are.'
            : 'It leaves the list.'}
        </Text>
      ),
      labels: { confirm: 'Archive', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        update.mutate(
          { id: flow.id, changes: { archived: true } },
          {
            onSuccess: () => {
              notifySuccess(`“${flow.name}” archived.`);
              void navigate('/flows');
            },
            onError: (error) => notifyError(error, flowMessages.updateFallback),
          },
        ),
    });
  return (
    <>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <ActionIcon variant="default" size="input-xs" aria-label="More flow actions">
            <IconDots size={16} />
          </ActionIcon>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item leftSection={<IconCopy size={16} />} onClick={() => setIsCopying(true)}>
            Copy flow
          </Menu.Item>
          <Menu.Item leftSection={<IconShare size={16} />} onClick={() => setIsSharing(true)}>
            Share flow
          </Menu.Item>
          <Menu.Item color="red" leftSection={<IconArchive size={16} />} onClick={confirmArchive}>
            Archive flow
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <CopyFlowDialog flow={isCopying ? flow : null} onClose={() => setIsCopying(false)} />
      <ShareFlowDialog flowId={isSharing ? flow.id : null} onClose={() => setIsSharing(false)} />
    </>
  );
}

/** The share flow dialog: a read-only link to the flow (flow-read-auth), valid for 30 days, to copy. */
function ShareFlowDialog({ flowId, onClose }: { flowId: number | null; onClose: () => void }) {
  const token = useShareToken(flowId);
  const link =
    token.data && flowId !== null
      ? `${window.location.origin}/flows/${flowId}?${new URLSearchParams({ 'flow-read-auth': token.data.shareToken }).toString()}`
      : null;
  return (
    <Modal opened={flowId !== null} onClose={onClose} title="Share this flow">
      <Stack gap="sm">
        <Text size="sm">
          Anyone signed in to Herald with this link sees the flow read-only for 30 days: its steps and
          settings, not its people.
        </Text>
        {token.isError ? (
          <Alert color="red" variant="light" role="alert">
            {flowMessages.shareError}
          </Alert>
        ) : (
          <Group gap="xs" wrap="nowrap">
            <TextInput
              aria-label="Read-only link"
              value={link ?? 'Preparing the link…'}
              readOnly
              style={{ flex: 1 }}
              onFocus={(event) => event.currentTarget.select()}
            />
            {link && <CopyButton value={link} label="Copy link" />}
          </Group>
        )}
      </Stack>
    </Modal>
  );
}
