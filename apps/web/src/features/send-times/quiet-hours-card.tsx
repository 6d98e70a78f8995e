import { sendTimeMessages } from '@herald/contracts';
import { Button, Card, Group, Stack, Switch, Text, Title } from '@mantine/core';
import { TimeInput } from '@mantine/dates';
import { IconMoon } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { ListBody } from '../../ui/list-page.tsx';
import { useQuietHours, useSaveQuietHours } from './send-times.api.ts';

const timePattern = /^([01]\d|2[0-3]):[0-5]\d$/;

/**
 * Settings → Email: quiet hours. While on, broadcast mail is held while it is quiet in the recipient's local time
 * (their `timezone` field, else the account's zone) and goes when the window ends. Test and transactional mail go.
 */
export function QuietHoursCard({ canWrite, timeZone }: { canWrite: boolean; timeZone: string }) {
  const quietHours = useQuietHours();
  const save = useSaveQuietHours();
  const stored = quietHours.data?.quietHours;
  const [start, setStart] = useState('21:00');
  const [end, setEnd] = useState('08:00');
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (!stored) return;
    setStart(stored.start);
    setEnd(stored.end);
  }, [stored]);

  const submit = (enabled: boolean) => {
    const bad =
      !timePattern.test(start) || !timePattern.test(end)
        ? 'Use times such as 21:00 and 08:00.'
        : start === end
          ? sendTimeMessages.quietHoursSameTimes
          : null;
    setProblem(bad);
    if (bad) return;
    save.mutate(
      { enabled, start, end },
      {
        onSuccess: (data) => notifySuccess(`✅ ${data.message}`),
        onError: (error) => notifyError(error, sendTimeMessages.quietHoursError),
      },
    );
  };
  const changed = stored !== undefined && (start !== stored.start || end !== stored.end);

  return (
    <Card withBorder radius="md" padding="lg" aria-labelledby="quiet-hours-title">
      <Stack gap="sm">
        <Group gap="xs" wrap="nowrap" align="flex-start">
          <IconMoon size={20} aria-hidden style={{ flexShrink: 0, marginTop: 2 }} />
          <div>
            <Title order={2} fz="lg" id="quiet-hours-title">
              Quiet hours
            </Title>
            <Text size="sm" c="dimmed">
              No broadcast reaches anyone between these times in their own time zone (their “timezone” field,
              else {timeZone}). Mail due then waits and goes when quiet hours end; a send that runs into them
              stops and carries on after. Test and transactional emails are not held.
            </Text>
          </div>
        </Group>
        <ListBody
          query={quietHours}
          loadingLabel="Loading quiet hours"
          skeletonHeights={[72]}
          errorFallback="Couldn't load quiet hours."
        >
          {() =>
            stored && (
              <>
                <Switch
                  label="Hold broadcasts during quiet hours"
                  checked={stored.enabled}
                  onChange={(e) => submit(e.currentTarget.checked)}
                  disabled={!canWrite || save.isPending}
                />
                <Group gap="sm" align="flex-start" wrap="wrap">
                  <TimeInput
                    label="From"
                    value={start}
                    onChange={(e) => (setStart(e.currentTarget.value), setProblem(null))}
                    readOnly={!canWrite}
                    w={140}
                  />
                  <TimeInput
                    label="Until"
                    value={end}
                    onChange={(e) => (setEnd(e.currentTarget.value), setProblem(null))}
                    readOnly={!canWrite}
                    w={140}
                    error={problem}
                  />
                </Group>
                <Text size="xs" c="dimmed">
                  {stored.enabled
                    ? `On: nothing is sent from ${stored.start} until ${stored.end}, local time.`
                    : 'Off: broadcasts go at any hour.'}
                </Text>
                {canWrite && (
                  <Group justify="flex-end">
                    <Button
                      onClick={() => submit(stored.enabled)}
                      loading={save.isPending}
                      disabled={!changed}
                    >
                      Save quiet hours
                    </Button>
                  </Group>
                )}
              </>
            )
          }
        </ListBody>
      </Stack>
    </Card>
  );
}
