import type { TimeWindow } from '@herald/contracts';
import { Group, NumberInput, Select } from '@mantine/core';
import { DateInput, today } from './date-input.tsx';

/** When something happened: ever, in the last N days, or between two dates. */
export function WindowInput({ value, onChange }: { value: TimeWindow; onChange: (w: TimeWindow) => void }) {
  return (
    <Group gap="xs" wrap="wrap">
      <Select
        aria-label="When"
        w={150}
        allowDeselect={false}
        data={[
          { value: 'ever', label: 'ever' },
          { value: 'inTheLast', label: 'in the last' },
          { value: 'between', label: 'between' },
        ]}
        value={value.type}
        onChange={(type) =>
          onChange(
            type === 'inTheLast'
              ? { type, days: 30 }
              : type === 'between'
                ? { type, from: today(), to: today() }
                : { type: 'ever' },
          )
        }
      />
      {value.type === 'inTheLast' && (
        <NumberInput
          aria-label="Days"
          w={110}
          min={1}
          max={36500}
          suffix=" days"
          value={value.days}
          onChange={(n) => onChange({ ...value, days: Math.max(1, Number(n) || 1) })}
        />
      )}
      {value.type === 'between' && (
        <>
          <DateInput label="From" value={value.from} onChange={(from) => onChange({ ...value, from })} />
          <DateInput label="To" value={value.to} onChange={(to) => onChange({ ...value, to })} />
        </>
      )}
    </Group>
  );
}
