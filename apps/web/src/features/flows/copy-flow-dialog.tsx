import { flowCopyMessages, flowMessages, type FlowCopyCounts } from '@herald/contracts';
import { Button, Group, List, Modal, Select, Stack, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { useAccount } from '../account/account.api.ts';
import { flowListKey } from './flows.api.ts';
import { useCopyFlow, useCopyPreview, useFlowAttached } from './share/flow-copy.api.ts';

type CopiedFlow = { id: number; name: string };
const accountLabel = (a: { id: number; name: string | null; site: string | null }) =>
  a.name || a.site || `Account ${a.id}`;

/**
 * The copy flow dialog (docs/flows.md). With more than one account: 'Copy this flow to:' and a
 * picker of the user's accounts — the current one left out, except for a shared flow (read-only mode), where it
 * comes first. With one account: 'Are you sure you want to copy this flow to your account?'. It lists how many
 * emails, segments and custom fields come with the copy. A copy into the current account opens at /flows/{id};
 * into another account it says '✅ Flow copied.' and closes.
 */
export function CopyFlowDialog({
  flow,
  shareToken = null,
  onClose,
}: {
  flow: CopiedFlow | null;
  shareToken?: string | null;
  onClose: () => void;
}) {
  return (
    <Modal opened={flow !== null} onClose={onClose} title={flow ? `Copy “${flow.name}”` : ''}>
      {flow && (
        <CopyFlowForm
          key={`${flow.id}:${shareToken ?? ''}`}
          flow={flow}
          shareToken={shareToken}
          onClose={onClose}
        />
      )}
    </Modal>
  );
}

function CopyFlowForm({
  flow,
  shareToken,
  onClose,
}: {
  flow: CopiedFlow;
  shareToken: string | null;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const account = useAccount();
  const current = account.data?.accountId ?? null;
  const accounts = account.data?.allAccounts ?? [];
  const hasPicker = accounts.length > 1;
  const targets =
    shareToken !== null
      ? [...accounts].sort((a, b) => Number(b.id === current) - Number(a.id === current))
      : accounts.filter((a) => a.id !== current);
  const [picked, setPicked] = useState<string | null>(null);
  const targetAccount = hasPicker ? (picked !== null ? Number(picked) : (targets[0]?.id ?? null)) : current;
  const preview = useCopyPreview(flow.id, targetAccount, shareToken);
  const attached = useFlowAttached(preview.data?.sameAccount ? flow.id : null, shareToken);
  const copy = useCopyFlow();

  const submit = () => {
    if (targetAccount === null) return;
    copy.mutate(
      { source: flow.id, targetAccount, shareToken },
      {
        onSuccess: (answer) => {
          notifySuccess(answer.message ?? flowMessages.copied);
          onClose();
          if ((answer.accountId ?? current) === current) {
            void queryClient.invalidateQueries({ queryKey: flowListKey });
            void navigate(`/flows/${answer.integration.id}`);
          }
        },
        onError: (error) => notifyError(error, flowCopyMessages.copyError),
      },
    );
  };

  const counts: FlowCopyCounts | null = preview.data
    ? preview.data.sameAccount
      ? attached.data
        ? {
            emails: attached.data.email.length,
            segments: attached.data.segment.length,
            fields: attached.data.field.length,
          }
        : null
      : preview.data.copied
    : null;
  const loadError = preview.isError ? preview.error : attached.isError ? attached.error : null;
  const target = accounts.find((a) => a.id === targetAccount);
  const targetName = target ? accountLabel(target) : 'that account';

  return (
    <Stack gap="md">
      {hasPicker ? (
        <Select
          label={flowCopyMessages.prompt}
          data={targets.map((a) => ({
            value: String(a.id),
            label: a.id === current ? `${accountLabel(a)} (this account)` : accountLabel(a),
          }))}
          value={targetAccount === null ? null : String(targetAccount)}
          onChange={setPicked}
          allowDeselect={false}
          comboboxProps={{ withinPortal: true }}
        />
      ) : (
        <Text size="sm">{flowCopyMessages.confirmOwn}</Text>
      )}
      {counts ? (
        <List size="sm" spacing={2} data-testid="copy-flow-counts">
          <List.Item>Emails: {counts.emails}</List.Item>
          <List.Item>Segments: {counts.segments}</List.Item>
          <List.Item>Custom Fields: {counts.fields}</List.Item>
        </List>
      ) : (
        <Text size="sm" c={loadError ? 'red.8' : 'dimmed'} role={loadError ? 'alert' : undefined}>
          {loadError
            ? errorMessage(loadError, flowCopyMessages.previewError)
            : 'Looking up what the copy brings with it…'}
        </Text>
      )}
      {preview.data && (
        <Text size="xs" c="dimmed">
          {preview.data.sameAccount
            ? 'The copy is switched off and uses the same emails, segments and fields as this flow.'
            : `The copy is switched off. These emails, segments and fields are created in ${targetName} with it; names already taken there get “(copy)”.`}
        </Text>
      )}
      <Group justify="flex-end" gap="xs">
        <Button variant="default" onClick={onClose}>
          Cancel
        </Button>
        <Button
          onClick={submit}
          loading={copy.isPending}
          disabled={targetAccount === null || preview.isError}
        >
          Copy Flow
        </Button>
      </Group>
    </Stack>
  );
}
