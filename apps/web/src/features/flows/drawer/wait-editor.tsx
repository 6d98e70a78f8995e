import '@mantine/dates/styles.css';
import type { WaitConfig } from '@herald/contracts';
import { Chip, Group, NumberInput, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import { DateTimePicker, TimeInput } from '@mantine/dates';
import { IconCalendarEvent } from '@tabler/icons-react';
import dayjs from 'dayjs';

const weekdayNames = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const weekdayOrder = [1, 2, 3, 4, 5, 6, 0];

/** A fresh wait of each mode, so switching modes always shows a complete setting. */
export function defaultWait(mode: WaitConfig['mode']): WaitConfig {
  if (mode === 'duration') return { mode, amount: 1, unit: 'days' };
  if (mode === 'until')
    return { mode, at: dayjs().add(1, 'day').hour(9).minute(0).second(0).millisecond(0).format() };
  return { mode, days: [1, 2, 3, 4, 5], from: '09:00', to: '17:00' };
}

/** The picker's wall-clock string ('YYYY-MM-DD HH:mm:ss') as ISO 8601 with the browser's offset, and back. */
export const toIso = (wallClock: string | null) => (wallClock ? dayjs(wallClock).format() : null);
export const toWallClock = (iso: string | undefined) =>
  iso && dayjs(iso).isValid() ? dayjs(iso).format('YYYY-MM-DD HH:mm:ss') : null;

/**
 * The wait step's three modes: a duration (0 goes on at once), until a date and time, or until one of some
 * weekdays between two times in the person's time zone.
 */
export function WaitEditor({
  value,
  onChange,
  isReadOnly,
}: {
  value: WaitConfig;
  onChange: (wait: WaitConfig) => void;
  isReadOnly: boolean;
}) {
  return (
    <Stack gap="sm">
      <SegmentedControl
        aria-label="How to wait"
        fullWidth
        disabled={isReadOnly}
        value={value.mode}
        onChange={(mode) => onChange(defaultWait(mode as WaitConfig['mode']))}
        data={[
          { value: 'duration', label: 'For a time' },
          { value: 'until', label: 'Until a date' },
          { value: 'weekday', label: 'Until a weekday' },
        ]}
      />
      {value.mode === 'duration' && (
        <Group gap="xs" align="flex-end">
          <NumberInput
            label="Wait"
            min={0}
            max={100_000}
            w={120}
            value={value.amount}
            readOnly={isReadOnly}
            onChange={(n) => onChange({ ...value, amount: Math.max(0, Math.floor(Number(n) || 0)) })}
          />
          <Select
            label="Unit"
            aria-label="Unit"
            w={130}
            allowDeselect={false}
            readOnly={isReadOnly}
            value={value.unit}
            onChange={(unit) => onChange({ ...value, unit: (unit ?? 'days') as typeof value.unit })}
            data={[
              { value: 'minutes', label: 'minutes' },
              { value: 'hours', label: 'hours' },
              { value: 'days', label: 'days' },
              { value: 'weeks', label: 'weeks' },
            ]}
          />
        </Group>
      )}
      {value.mode === 'duration' && value.amount === 0 && (
        <Text size="xs" c="dimmed">
          0 lets people go on to the next step at once.
        </Text>
      )}
      {value.mode === 'until' && (
        <DateTimePicker
          label="Wait until"
          description="In your browser's time zone; people who arrive later go on at once."
          valueFormat="MMM D, YYYY HH:mm"
          leftSection={<IconCalendarEvent size={16} />}
          readOnly={isReadOnly}
          value={toWallClock(value.at)}
          onChange={(picked) => onChange({ ...value, at: toIso(picked) ?? value.at })}
          popoverProps={{ withinPortal: true }}
        />
      )}
      {value.mode === 'weekday' && (
        <Stack gap="xs">
          <Text size="sm" fw={500} id="wait-days-label">
            On
          </Text>
          <Chip.Group
            multiple
            value={value.days.map(String)}
            onChange={(days) =>
              !isReadOnly && days.length > 0 && onChange({ ...value, days: days.map(Number).sort() })
            }
          >
            <Group gap={6} role="group" aria-labelledby="wait-days-label">
              {weekdayOrder.map((day) => (
                <Chip key={day} value={String(day)} size="xs">
                  {weekdayNames[day]}
                </Chip>
              ))}
            </Group>
          </Chip.Group>
          <Group gap="xs">
            <TimeInput
              label="From"
              w={120}
              readOnly={isReadOnly}
              value={value.from}
              onChange={(event) => onChange({ ...value, from: event.currentTarget.value })}
            />
            <TimeInput
              label="To"
              w={120}
              readOnly={isReadOnly}
              value={value.to}
              onChange={(event) => onChange({ ...value, to: event.currentTarget.value })}
            />
          </Group>
          <Text size="xs" c="dimmed">
            In each person's time zone (the account's when theirs is unknown).
          </Text>
        </Stack>
      )}
    </Stack>
  );
}
