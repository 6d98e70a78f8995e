import '@mantine/dates/styles.css';
import { DatePickerInput } from '@mantine/dates';
import { IconCalendar } from '@tabler/icons-react';

/** Today as the YYYY-MM-DD string conditions store. */
export const today = () => new Date().toISOString().slice(0, 10);

/** A calendar date picker that reads and writes the YYYY-MM-DD strings of the condition tree. */
export function DateInput({
  label,
  value,
  onChange,
  w = 160,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  w?: number;
}) {
  // Only a well-formed date reaches the picker; anything else shows an empty input.
  const date = /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : null;
  return (
    <DatePickerInput
      aria-label={label}
      placeholder="Pick a date"
      w={w}
      valueFormat="YYYY-MM-DD"
      leftSection={<IconCalendar size={16} />}
      value={date}
      onChange={(picked) => onChange(picked ?? '')}
      popoverProps={{ withinPortal: true }}
    />
  );
}
