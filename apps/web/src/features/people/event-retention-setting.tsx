import { Button, Card, Group, NumberInput, Switch, Text } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { useEventRetention, useSetEventRetention } from './privacy.api.ts';

/**
 * The account's event retention (docs/people.md, "Event retention"): off, or delete events older than N months (1 to
 * 120), every day. Changing it needs account:write; others see it.
 */
export function EventRetentionSetting({ canChange }: { canChange: boolean }) {
  const retention = useEventRetention();
  const save = useSetEventRetention();
  const stored = retention.data?.eventRetentionMonths;
  const [isOn, setIsOn] = useState(false);
  const [months, setMonths] = useState<number | string>(24);
  useEffect(() => {
    if (stored === undefined) return;
    setIsOn(stored !== null);
    if (stored !== null) setMonths(stored);
  }, [stored]);
  const isValid =
    !isOn || (typeof months === 'number' && Number.isInteger(months) && months >= 1 && months <= 120);
  const wanted = isOn ? (months as number) : null;
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!isValid) return;
    save.mutate(wanted, {
      onSuccess: (result) => notifySuccess(result.message ?? 'Saved.'),
      onError: (error) => notifyError(error, "Couldn't save the event retention."),
    });
  };
  if (retention.isError)
    return (
      <Text size="sm" c="red">
        The event retention could not be loaded.
      </Text>
    );
  return (
    <Card withBorder radius="md" p="md">
      <form onSubmit={onSubmit} aria-label="Event retention">
        <Group gap="md" align="flex-end" wrap="wrap">
          <Switch
            label="Delete old events"
            description="Every day, events older than this go; campaign totals keep their counts."
            checked={isOn}
            onChange={(e) => setIsOn(e.currentTarget.checked)}
            disabled={!canChange || retention.isPending}
          />
          <NumberInput
            label="Older than (months)"
            min={1}
            max={120}
            allowDecimal={false}
            value={months}
            onChange={setMonths}
            disabled={!canChange || !isOn}
            error={isValid ? undefined : 'Between 1 and 120 months.'}
            w={{ base: '100%', xs: 180 }}
          />
          {canChange && (
            <Button
              type="submit"
              variant="default"
              loading={save.isPending}
              disabled={!isValid || retention.isPending || wanted === stored}
            >
              Save
            </Button>
          )}
        </Group>
      </form>
    </Card>
  );
}
