import type { TimeWindow } from '@herald/contracts';
import { Group, NumberInput, Select, TextInput } from '@mantine/core';

const today = () => new Date().toISOString().slice(0, 10);

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
          onChange(type === 'inTheLast' ? { type, days: 30 } : type === 'between' ? { type, from: today(), to: today() } : { type: 'ever' })
        }
      />
      {value.type === 'inTheLast' && (
        <NumberInput aria-label="Days" w={110} min={1} max={36500} suffix=" days" value={value.days} onChange={(n) => onChange({ ...value, days: Math.max(1, Number(n) || 1) })} />
      )}
      {value.type === 'between' && (
        <>
          <TextInput aria-label="From" type="date" w={160} value={value.from} onChange={(e) => onChange({ ...value, from: e.currentTarget.value })} />
          <TextInput aria-label="To" type="date" w={160} value={value.to} onChange={(e) => onChange({ ...value, to: e.currentTarget.value })} />
        </>
      )}
    </Group>
  );
}
