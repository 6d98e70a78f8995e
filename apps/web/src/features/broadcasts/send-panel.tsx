import '@mantine/dates/styles.css';
import type { Broadcast, BroadcastTime } from '@herald/contracts';
import {
  Anchor,
  Button,
  Card,
  Group,
  List,
  Loader,
  Radio,
  SegmentedControl,
  Stack,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { DateTimePicker } from '@mantine/dates';
import {
  IconAlertTriangle,
  IconCalendarEvent,
  IconCheck,
  IconClock,
  IconSend,
  IconX,
} from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { canSend, type CheckState, type SendCheck } from './send-checks.ts';
import {
  formatInZone,
  formatLocalTime,
  fromZonedWallClock,
  recipientWindowEnd,
  toZonedWallClock,
  tomorrowMorning,
} from './send-time.ts';

const checkIcon: Record<CheckState, { icon: React.ReactNode; color: string; spoken: string }> = {
  pass: { icon: <IconCheck size={14} />, color: 'green', spoken: 'Passed' },
  fail: { icon: <IconX size={14} />, color: 'red', spoken: 'Blocks sending' },
  warn: { icon: <IconAlertTriangle size={14} />, color: 'orange', spoken: 'Warning' },
  pending: { icon: <Loader size={10} color="gray" />, color: 'gray', spoken: 'Checking' },
};

/** The pre-send check list: each line passed, blocking or warning, with how to fix it. */
export function CheckList({ checks }: { checks: SendCheck[] }) {
  return (
    <List
      spacing="xs"
      listStyleType="none"
      aria-label="Before sending"
      styles={{ itemWrapper: { alignItems: 'flex-start' } }}
    >
      {checks.map((check) => {
        const look = checkIcon[check.state];
        return (
          <List.Item
            key={check.id}
            data-check={check.id}
            data-state={check.state}
            icon={
              <ThemeIcon
                size={20}
                radius="xl"
                variant="light"
                color={look.color}
                aria-label={look.spoken}
                role="img"
              >
                {look.icon}
              </ThemeIcon>
            }
          >
            <Text size="sm" fw={check.state === 'pass' ? 400 : 600} style={{ wordBreak: 'break-word' }}>
              {check.label}
            </Text>
            {check.detail && (
              <Text size="xs" c="dimmed">
                {check.detail}{' '}
                {check.link && (
                  <Anchor component={Link} to={check.link.to} size="xs" td="underline">
                    {check.link.label}
                  </Anchor>
                )}
              </Text>
            )}
          </List.Item>
        );
      })}
    </List>
  );
}

interface SendPanelProps {
  broadcast: Broadcast;
  checks: SendCheck[];
  timeZone: string;
  /** Draft or scheduled, and the member may write broadcasts. */
  canEdit: boolean;
  isSending: boolean;
  isCanceling: boolean;
  /** Send now (null) or at this ISO instant, read as one moment or as each recipient's local time. */
  onSend: (sendAt: string | null, time: BroadcastTime | null) => void;
  onCancel: () => void;
}

/** Send now or schedule (a date-time in the account's time zone), after the check list; a scheduled one can be canceled. */
export function SendPanel({
  broadcast,
  checks,
  timeZone,
  canEdit,
  isSending,
  isCanceling,
  onSend,
  onCancel,
}: SendPanelProps) {
  const [mode, setMode] = useState<'now' | 'later'>(broadcast.sendAt ? 'later' : 'now');
  const [wallClock, setWallClock] = useState<string | null>(
    broadcast.sendAt ? toZonedWallClock(broadcast.sendAt, timeZone) : tomorrowMorning(timeZone),
  );
  const [timeError, setTimeError] = useState<string | null>(null);
  const [zoneMode, setZoneMode] = useState<BroadcastTime['type']>(broadcast.time?.type ?? 'account');
  useEffect(() => {
    if (broadcast.sendAt) {
      setMode('later');
      setWallClock(toZonedWallClock(broadcast.sendAt, timeZone));
    }
  }, [broadcast.sendAt, timeZone]);
  useEffect(() => setZoneMode(broadcast.time?.type ?? 'account'), [broadcast.time?.type]);

  const ready = canSend(checks);
  const scheduled = broadcast.status === 'scheduled';
  const recipientTime = mode === 'later' && zoneMode === 'recipient';
  const submit = () => {
    if (mode === 'now') return onSend(null, null);
    const sendAt = wallClock ? fromZonedWallClock(wallClock, timeZone) : null;
    if (!sendAt) return setTimeError('Pick a date and time.');
    // In recipients' time zones the time has passed for everyone only once UTC−12 has reached it.
    const last = recipientTime ? recipientWindowEnd(wallClock!) : new Date(sendAt).getTime();
    if (last <= Date.now()) return setTimeError('Pick a time in the future, or send now.');
    setTimeError(null);
    onSend(sendAt, { type: zoneMode });
  };

  return (
    <Card withBorder radius="md" p="lg">
      <Stack gap="md">
        <Group gap="xs">
          <IconSend size={18} aria-hidden />
          <Title order={2} fz="lg">
            Send
          </Title>
        </Group>
        {scheduled && broadcast.sendAt && (
          <Group gap="xs" wrap="nowrap" align="flex-start">
            <IconClock size={18} aria-hidden style={{ flexShrink: 0 }} />
            <Text size="sm" fw={600}>
              {broadcast.time?.type === 'recipient'
                ? `Scheduled for ${formatLocalTime(toZonedWallClock(broadcast.sendAt, timeZone))} in each recipient's time zone`
                : `Scheduled for ${formatInZone(broadcast.sendAt, timeZone)}`}
            </Text>
          </Group>
        )}
        <CheckList checks={checks} />
        {canEdit && (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              submit();
            }}
          >
            <Stack gap="sm">
              <SegmentedControl
                aria-label="When to send"
                value={mode}
                onChange={(value) => setMode(value as 'now' | 'later')}
                data={[
                  { value: 'now', label: 'Send now' },
                  { value: 'later', label: 'Schedule' },
                ]}
                w="fit-content"
              />
              {mode === 'later' && (
                <Radio.Group
                  label="Whose clock"
                  value={zoneMode}
                  onChange={(value) => setZoneMode(value as BroadcastTime['type'])}
                >
                  <Stack gap={6} mt={4}>
                    <Radio
                      value="account"
                      label="At a fixed time"
                      description={`One moment for everyone, in your account's time zone (${timeZone}).`}
                    />
                    <Radio
                      value="recipient"
                      label="In each recipient's time zone"
                      description={`Everyone gets it at this time on their own clock: their “timezone” field, else ${timeZone}.`}
                    />
                  </Stack>
                </Radio.Group>
              )}
              {mode === 'later' && (
                <DateTimePicker
                  label="Send at"
                  description={
                    recipientTime
                      ? 'Local time for each recipient.'
                      : `In your account's time zone, ${timeZone}.`
                  }
                  valueFormat="MMM D, YYYY HH:mm"
                  leftSection={<IconCalendarEvent size={16} />}
                  value={wallClock}
                  onChange={(value) => {
                    setWallClock(value);
                    setTimeError(null);
                  }}
                  minDate={tomorrowMorning(timeZone, Date.now() - 24 * 3600_000).slice(0, 10)}
                  error={timeError}
                  popoverProps={{ withinPortal: true }}
                  maw={320}
                />
              )}
              {recipientTime && (
                <Text size="xs" c="dimmed" data-testid="recipient-window">
                  Sending starts when the first time zone (UTC+14) reaches this time and ends about 26 hours
                  later, when the last (UTC−12) does. Where the time has already passed when sending starts,
                  people get it the next day at that time if that still falls in the window, otherwise
                  straight away. Quiet hours still apply.
                </Text>
              )}
              <Group gap="sm" wrap="wrap">
                <Button
                  type="submit"
                  leftSection={mode === 'now' ? <IconSend size={16} /> : <IconCalendarEvent size={16} />}
                  disabled={!ready}
                  loading={isSending}
                >
                  {mode === 'now' ? 'Send now' : scheduled ? 'Update schedule' : 'Schedule'}
                </Button>
                {scheduled && (
                  <Button variant="light" color="red" onClick={onCancel} loading={isCanceling}>
                    Cancel broadcast
                  </Button>
                )}
              </Group>
              {!ready && (
                <Text size="xs" c="dimmed">
                  Fix the lines marked in red to send.
                </Text>
              )}
            </Stack>
          </form>
        )}
      </Stack>
    </Card>
  );
}
