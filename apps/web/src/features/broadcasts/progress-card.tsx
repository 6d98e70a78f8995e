import { broadcastStatusLabels, type Broadcast, type BroadcastProgress } from '@herald/contracts';
import { Alert, Card, Group, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconAlertCircle, IconClockHour4, IconPlayerPause, IconPlugConnectedX } from '@tabler/icons-react';
import { formatDateTime } from '../../lib/format.ts';
import { Figure } from '../../ui/figure.tsx';
import { SendFigures } from '../metrics/send-figures.tsx';
import { PauseButton } from '../send-times/pause-buttons.tsx';

/** Figures of one send: from the live status answer when there is one, else the item's own stats. */
export function figuresOf(broadcast: Broadcast, progress: BroadcastProgress | undefined) {
  const sent = progress?.sent ?? broadcast.stats.sent;
  const failed = progress?.failed ?? broadcast.stats.failed;
  const remaining = progress
    ? progress.pending + progress.sending + progress.paused
    : broadcast.stats.pending;
  const canceled = progress?.canceled ?? 0;
  const total = progress?.total ?? broadcast.stats.queued;
  return { sent, failed, remaining, canceled, total, excluded: broadcast.stats.excluded };
}

/** Messages per second since the send started, and the time left at that pace. */
function pace(
  broadcast: Broadcast,
  done: number,
  remaining: number,
  now: number,
): { rate: number | null; etaSeconds: number | null } {
  if (!broadcast.startedAt) return { rate: null, etaSeconds: null };
  const elapsed = (now - new Date(broadcast.startedAt).getTime()) / 1000;
  if (elapsed <= 0 || done === 0) return { rate: null, etaSeconds: null };
  const rate = done / elapsed;
  return { rate, etaSeconds: remaining > 0 ? Math.ceil(remaining / rate) : 0 };
}

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** Who is still waiting for their time (recipients' zones, quiet hours, retries), in one sentence. */
function waitingLine(
  broadcast: Broadcast,
  progress: BroadcastProgress | undefined,
  sent: number,
): string | null {
  if (!progress || progress.waiting === 0 || !progress.waitingUntil) return null;
  const until = `${progress.waiting.toLocaleString()} waiting until ${formatDateTime(progress.waitingUntil)}`;
  return broadcast.time?.type === 'recipient'
    ? `Scheduled in recipients' time zones: ${sent.toLocaleString()} sent, ${until}.`
    : `${until} (quiet hours or a retry).`;
}

/** Live progress while the broadcast is sending or A/B testing: sent, failed, remaining, rate and ETA; pause and resume. */
export function ProgressCard({
  broadcast,
  progress,
  now,
  canWrite = false,
}: {
  broadcast: Broadcast;
  progress: BroadcastProgress | undefined;
  now: number;
  canWrite?: boolean;
}) {
  const { sent, failed, remaining, total } = figuresOf(broadcast, progress);
  const paused = broadcast.pausedAt !== null;
  const { rate, etaSeconds } = paused
    ? { rate: null, etaSeconds: null }
    : pace(broadcast, sent + failed, remaining, now);
  const waiting = waitingLine(broadcast, progress, sent);
  const share = (n: number) => (total > 0 ? (n / total) * 100 : 0);
  return (
    <Card withBorder radius="md" p="lg">
      <Stack gap="md">
        <Group justify="space-between" wrap="wrap">
          <Title order={2} fz="lg">
            {broadcastStatusLabels[broadcast.status]}…
          </Title>
          <Group gap="sm" wrap="wrap">
            <Text size="sm" c="dimmed">
              {broadcast.startedAt ? `Started ${formatDateTime(broadcast.startedAt)}` : 'Starting'}
            </Text>
            {canWrite && <PauseButton broadcast={broadcast} />}
          </Group>
        </Group>
        {paused && (
          <Alert
            color="orange"
            variant="light"
            icon={<IconPlayerPause size={18} />}
            title={`Paused ${formatDateTime(broadcast.pausedAt!)}`}
          >
            {`${(progress?.paused ?? remaining).toLocaleString()} not sent yet and held. Messages already on their way still arrive; resume to send the rest.`}
          </Alert>
        )}
        {progress?.problem && (
          <Alert
            color="red"
            variant="light"
            icon={<IconPlugConnectedX size={18} />}
            title="Sending is held up"
            data-testid="send-problem"
          >
            <Stack gap={4}>
              <Text size="sm">{progress.problem.message}</Text>
              <Text size="sm" c="dimmed">
                {`Since ${formatDateTime(progress.problem.since)}, ${progress.problem.failures} ${progress.problem.failures === 1 ? 'attempt' : 'attempts in a row'}. Nothing is lost: Herald tries again every few minutes. Whoever runs Herald should check its mail server settings; you can pause or cancel meanwhile.`}
              </Text>
            </Stack>
          </Alert>
        )}
        {waiting && (
          <Group gap="xs" wrap="nowrap" align="flex-start">
            <IconClockHour4 size={16} aria-hidden style={{ flexShrink: 0, marginTop: 2 }} />
            <Text size="sm" data-testid="waiting-line">
              {waiting}
            </Text>
          </Group>
        )}
        <Progress.Root size="xl">
          <Progress.Section
            value={share(sent)}
            color="green"
            aria-label={`Sent: ${sent.toLocaleString()} of ${total.toLocaleString()}`}
          />
          <Progress.Section
            value={share(failed)}
            color="red"
            aria-label={`Failed: ${failed.toLocaleString()} of ${total.toLocaleString()}`}
          />
        </Progress.Root>
        <SimpleGrid
          cols={{ base: 2, sm: 5 }}
          spacing="md"
          role="status"
          aria-live="polite"
          aria-label="Sending progress"
        >
          <Figure label="Sent" value={sent.toLocaleString()} />
          <Figure label="Failed" value={failed.toLocaleString()} />
          <Figure label="Remaining" value={remaining.toLocaleString()} />
          <Figure
            label="Rate"
            value={
              rate === null ? '—' : `${rate >= 10 ? Math.round(rate).toLocaleString() : rate.toFixed(1)}/s`
            }
          />
          <Figure label="Time left" value={etaSeconds === null ? '—' : duration(etaSeconds)} />
        </SimpleGrid>
      </Stack>
    </Card>
  );
}

/** What happened once the send ended: delivered, failed, excluded, then opens, clicks and the rest from the metrics rollups. */
export function ResultsCard({
  broadcast,
  progress,
}: {
  broadcast: Broadcast;
  progress: BroadcastProgress | undefined;
}) {
  const { sent, failed, excluded, canceled } = figuresOf(broadcast, progress);
  return (
    <Card withBorder radius="md" p="lg">
      <Stack gap="md">
        <Group justify="space-between" wrap="wrap">
          <Title order={2} fz="lg">
            Results
          </Title>
          {broadcast.finishedAt && (
            <Text size="sm" c="dimmed">
              Finished {formatDateTime(broadcast.finishedAt)}
            </Text>
          )}
        </Group>
        {broadcast.status === 'failed' && (
          <Alert
            color="red"
            variant="light"
            icon={<IconAlertCircle size={18} />}
            title="This broadcast failed"
          >
            {broadcast.failure ?? 'Nothing could be sent.'}
          </Alert>
        )}
        <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="md">
          <Figure
            label="Delivered"
            value={sent.toLocaleString()}
            hint="Accepted by the recipients' mail servers."
          />
          <Figure
            label="Failed"
            value={failed.toLocaleString()}
            hint="Refused for good, or still failing after every retry."
          />
          <Figure
            label="Excluded"
            value={excluded.toLocaleString()}
            hint="In the audience but not sent to: suppressed, unsubscribed, opted out of the category, archived or without an address."
          />
          {canceled > 0 && (
            <Figure
              label="Canceled"
              value={canceled.toLocaleString()}
              hint="Not sent because the broadcast was canceled."
            />
          )}
        </SimpleGrid>
        <SendFigures subject={{ broadcastId: broadcast.id }} />
      </Stack>
    </Card>
  );
}
