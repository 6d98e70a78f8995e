import { Group, Text } from '@mantine/core';

/** The product mark and name; without the name the mark itself is named Herald (a logo link reads "Herald"). */
export function BrandLogo({ size = 28, withName = true }: { size?: number; withName?: boolean }) {
  return (
    <Group gap={8} wrap="nowrap">
      <svg
        width={size}
        height={size}
        viewBox="0 0 32 32"
        {...(withName ? { 'aria-hidden': true } : { role: 'img', 'aria-label': 'Herald' })}
      >
        <rect width="32" height="32" rx="8" fill="var(--mantine-color-indigo-6)" />
        <path d="M9 8h4v6.5h6V8h4v16h-4v-6h-6v6H9z" fill="#fff" />
      </svg>
      {withName && (
        <Text fw={700} size="lg" c="dark.7" style={{ letterSpacing: '-0.01em' }}>
          Herald
        </Text>
      )}
    </Group>
  );
}
