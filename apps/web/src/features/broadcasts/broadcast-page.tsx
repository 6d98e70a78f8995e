import {
  type Broadcast,
  broadcastMessages,
  cancelableBroadcastStatuses,
  hasScopes,
  isBroadcastEditable,
  isBroadcastPolled,
  type Audience,
  type BroadcastTime,
} from '@herald/contracts';
import { Alert, Anchor, Button, Grid, Group, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { modals } from '@mantine/modals';
import { IconArrowLeft, IconLock } from '@tabler/icons-react';
import { useEffect, useMemo, useState } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { listReturnPath } from '../../lib/use-list-state.ts';
import { DetailPage, DetailSkeleton } from '../../ui/detail-page.tsx';
import { seeGate } from '../../ui/list-page.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { useAccount } from '../account/account.api.ts';
import { useEmail, useEmails } from '../emails/emails.api.ts';
import { useSenderAddresses, useSenderDomains } from '../senders/senders.api.ts';
import { AbTestPanel } from './ab-test-panel.tsx';
import { AudiencePicker, isAudienceComplete } from './audience-picker.tsx';
import { BroadcastDetails } from './broadcast-details.tsx';
import { BroadcastStatusBadge } from './broadcast-status-badge.tsx';
import {
  useAudienceCount,
  useBroadcast,
  useBroadcastStatus,
  useCancelBroadcast,
  useSendBroadcast,
  useUpdateBroadcast,
  type BroadcastChanges,
} from './broadcasts.api.ts';
import { ProgressCard, ResultsCard } from './progress-card.tsx';
import { sendChecks, type SendCheck } from './send-checks.ts';
import { SendPanel } from './send-panel.tsx';
import { usableTimeZone } from './send-time.ts';

/** The list's address with only its own (broadcasts-…) query parameters (docs/broadcasts-and-sending.md). */
const listPath = (search: string) => listReturnPath('/broadcasts', 'broadcasts', search);

/** Waiting for the audience to settle before counting and saving it. */
const audienceDebounceMs = 400;

/** /broadcasts/{id}: content, audience with its live count, the pre-send check, send or schedule; live progress and results. */
export function BroadcastPage() {
  const id = Number(useParams().id);
  const location = useLocation();
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canRead = accountData ? hasScopes(accountData, ['broadcasts:read']) : false;
  const canWrite = accountData ? hasScopes(accountData, ['broadcasts:write']) : false;
  const broadcast = useBroadcast(id);
  const item = broadcast.data?.item;
  const status = useBroadcastStatus(id, item?.status);
  const emails = useEmails('false', { enabled: canRead });
  const update = useUpdateBroadcast();
  const send = useSendBroadcast();
  const cancel = useCancelBroadcast();
  const canEdit = canWrite && item !== undefined && isBroadcastEditable(item.status);
  const addresses = useSenderAddresses();
  const domains = useSenderDomains();
  const timeZone = usableTimeZone(account.data?.timezone);
  // An A/B test switched on but not complete blocks the send (it is saved only once valid).
  const [abTestProblem, setAbTestProblem] = useState<string | null>(null);

  // The audience on screen; saved and counted once it has settled.
  const [audience, setAudience] = useState<Audience | null>(null);
  useEffect(() => setAudience(null), [id]);
  useEffect(() => {
    if (item && audience === null) setAudience(item.audience);
  }, [item, audience]);
  const [settled] = useDebouncedValue(audience, audienceDebounceMs);
  const countable = settled && isAudienceComplete(settled) ? settled : null;
  const count = useAudienceCount(canEdit ? countable : null, item?.emailId ?? null);
  const email = useEmail(item?.emailId ?? 0);

  const save = (changes: BroadcastChanges, options: { onSuccess?: () => void } = {}) =>
    update.mutate(
      { id, changes },
      { onSuccess: options.onSuccess, onError: (error) => notifyError(error, broadcastMessages.saveError) },
    );

  useEffect(() => {
    if (!canEdit || !item || !countable) return;
    if (JSON.stringify(countable) !== JSON.stringify(item.audience)) save({ audience: countable });
    // Runs when the settled audience changes, and saves only when it differs from the stored one.
  }, [countable, canEdit]);

  const checks = useMemo(
    () =>
      sendChecks({
        emailId: item?.emailId ?? null,
        email: email.data?.email,
        addresses: addresses.data?.emails,
        domains: domains.data?.domains,
        testAccount: account.data?.testAccount ?? false,
        mailingAddress: account.data?.mailingAddress ?? null,
        audienceComplete: audience ? isAudienceComplete(audience) : false,
        count: count.data ?? null,
      }),
    [item?.emailId, email.data, addresses.data, domains.data, account.data, audience, count.data],
  );
  const allChecks: SendCheck[] = abTestProblem
    ? [
        ...checks,
        {
          id: 'abTest',
          label: abTestProblem,
          detail: 'Finish the A/B test or switch it off.',
          state: 'fail',
          blocking: true,
        },
      ]
    : checks;

  const view = (item: Broadcast) => {
    if (!account.data || audience === null) return null; // the loader waits for them
    // Send: save a changed time first, then send (the server checks the sender again) (docs/broadcasts-and-sending.md).
    const sendBroadcast = (sendAt: string | null, time: BroadcastTime | null) => {
      const go = () =>
        send.mutate(id, {
          onSuccess: (data) =>
            notifySuccess(
              data.message ||
                (data.item.status === 'scheduled' ? broadcastMessages.scheduled : broadcastMessages.sending),
            ),
          onError: (error) => notifyError(error, broadcastMessages.sendError),
        });
      const timeChanged = sendAt !== item.sendAt || time?.type !== item.time?.type;
      const run = () => (timeChanged ? save({ sendAt, time }, { onSuccess: go }) : go());
      if (sendAt) return run();
      const recipients = count.data?.deliverable;
      modals.openConfirmModal({
        title: `Send “${item.name}” now?`,
        children: (
          <Text size="sm">
            {recipients === undefined
              ? 'It goes out at once.'
              : `It goes out at once to ${recipients.toLocaleString()} ${recipients === 1 ? 'person' : 'people'}.`}
          </Text>
        ),
        labels: { confirm: 'Send now', cancel: 'Not yet' },
        onConfirm: run,
      });
    };
    const confirmCancel = () =>
      modals.openConfirmModal({
        title: `Cancel “${item.name}”?`,
        children: (
          <Text size="sm">
            {item.status === 'scheduled'
              ? 'It will not be sent.'
              : 'Nobody else gets it; messages already on their way still arrive.'}
          </Text>
        ),
        labels: { confirm: 'Cancel broadcast', cancel: 'Keep it' },
        confirmProps: { color: 'red' },
        onConfirm: () =>
          cancel.mutate(id, {
            onSuccess: (data) => notifySuccess(data.message || broadcastMessages.canceled),
            onError: (error) => notifyError(error, broadcastMessages.cancelError),
          }),
      });

    const progress = status.data?.item.id === id ? status.data.progress : undefined;
    const isLive = isBroadcastPolled(item.status) && item.status !== 'scheduled';
    const isOver =
      item.status === 'sent' ||
      item.status === 'failed' ||
      (item.status === 'canceled' && item.startedAt !== null);
    const showCanceledNote = item.status === 'canceled' && !item.startedAt;
    const countError = count.isError ? errorMessage(count.error, "Couldn't count the recipients.") : null;

    return (
      <Stack gap="md" py="md">
        <PageHeader
          back={
            <Anchor component={Link} to={listPath(location.search)} size="sm" c="dimmed">
              <Group gap={4}>
                <IconArrowLeft size={14} aria-hidden /> Broadcasts
              </Group>
            </Anchor>
          }
          title={item.name}
          badge={<BroadcastStatusBadge status={item.status} paused={item.pausedAt !== null} />}
          description={
            canEdit
              ? 'Choose the email and who gets it, check, then send now or schedule.'
              : 'This broadcast can no longer be changed.'
          }
          actions={
            isLive && canWrite && cancelableBroadcastStatuses.includes(item.status) ? (
              <Button variant="light" color="red" onClick={confirmCancel} loading={cancel.isPending}>
                Cancel broadcast
              </Button>
            ) : undefined
          }
        />
        {!canWrite && (
          <Alert variant="light" color="gray" icon={<IconLock size={18} />}>
            You can see this broadcast. Changing and sending it needs the “Edit broadcasts” permission.
          </Alert>
        )}
        {isLive && (
          <ProgressCard
            broadcast={item}
            progress={progress}
            now={status.data?.receivedAt ?? Date.now()}
            canWrite={canWrite}
          />
        )}
        {isOver && <ResultsCard broadcast={item} progress={progress} />}
        <Grid gutter="md">
          <Grid.Col span={{ base: 12, md: canEdit || showCanceledNote ? 7 : 8 }}>
            <Stack gap="md">
              <BroadcastDetails
                name={item.name}
                emailId={item.emailId}
                emails={emails.data?.emails}
                emailsError={
                  emails.isError ? errorMessage(emails.error, "We couldn't retrieve your emails.") : null
                }
                readOnly={!canEdit}
                onRename={(name) => save({ name })}
                onChooseEmail={(emailId) => save({ emailId })}
              />
              <AudiencePicker
                audience={audience}
                onChange={setAudience}
                readOnly={!canEdit}
                count={canEdit ? (count.data ?? null) : null}
                isCounting={count.isFetching || audience !== settled}
                countError={countError}
              />
              <AbTestPanel
                broadcast={item}
                emails={emails.data?.emails}
                canEdit={canEdit}
                recipients={count.data?.deliverable ?? null}
                results={status.data?.item.id === id ? (status.data.abTest ?? null) : null}
                onSave={(abTest) => save({ abTest })}
                onProblem={setAbTestProblem}
              />
            </Stack>
          </Grid.Col>
          {canEdit && (
            <Grid.Col span={{ base: 12, md: 5 }}>
              <SendPanel
                broadcast={item}
                checks={allChecks}
                timeZone={timeZone}
                canEdit={canEdit}
                isSending={send.isPending || update.isPending}
                isCanceling={cancel.isPending}
                onSend={sendBroadcast}
                onCancel={confirmCancel}
              />
            </Grid.Col>
          )}
          {showCanceledNote && (
            <Grid.Col span={{ base: 12, md: 5 }}>
              <Alert variant="light" color="gray" title="Canceled">
                This broadcast was canceled before it went out. Duplicate it from the list to send it again.
              </Alert>
            </Grid.Col>
          )}
        </Grid>
      </Stack>
    );
  };

  return (
    <DetailPage
      query={{
        ...broadcast,
        isPending: broadcast.isPending || !account.data || audience === null,
        data: item,
      }}
      loadingLabel="Loading broadcast"
      skeleton={<DetailSkeleton label="Loading broadcast" heights={[200, 240]} />}
      gate={seeGate(canRead || !account.data, 'broadcasts', 'See broadcasts')}
      notFound={{
        title: 'Broadcast not found',
        description: 'It may have been deleted, or it belongs to another account.',
        back: { to: listPath(location.search), label: 'Back to broadcasts' },
      }}
      errorFallback={broadcastMessages.loadError}
    >
      {view}
    </DetailPage>
  );
}
