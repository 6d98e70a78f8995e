import { ColorSwatch, Group, Stack, Text } from '@mantine/core';

/** A row of colour swatches to pick one from (a radio group, usable by keyboard). */
export function ColourChoice({
  colors,
  value,
  onChange,
  label = 'Colour',
}: {
  colors: readonly string[];
  value: string | null;
  onChange: (color: string) => void;
  label?: string;
}) {
  return (
    <Stack gap={6}>
      <Text size="sm" fw={500}>
        {label}
      </Text>
      <Group gap={8} role="radiogroup" aria-label={label}>
        {colors.map((c) => (
          <ColorSwatch
            key={c}
            component="button"
            type="button"
            color={c}
            size={24}
            role="radio"
            aria-checked={value === c}
            aria-label={c}
            onClick={() => onChange(c)}
            style={{
              cursor: 'pointer',
              outline: value === c ? '2px solid var(--mantine-color-dark-4)' : undefined,
              outlineOffset: 2,
            }}
          />
        ))}
      </Group>
    </Stack>
  );
}
