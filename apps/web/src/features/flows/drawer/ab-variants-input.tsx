import { flowLimits } from '@herald/contracts';
import { ActionIcon, Button, Group, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import { IconPlus, IconX } from '@tabler/icons-react';

export type Variant = { name: string; weight: number };

/** Two even variants, A and B. */
export const defaultVariants = (): Variant[] => [
  { name: 'A', weight: 50 },
  { name: 'B', weight: 50 },
];

/** Weights that add up to 100, spread as evenly as whole numbers allow. */
function evenWeights(count: number): number[] {
  const base = Math.floor(100 / count);
  return Array.from({ length: count }, (_, i) => base + (i < 100 - base * count ? 1 : 0));
}

/**
 * An A/B test's variants: each a name (the branch's link condition) and a weight; people are split by weight.
 * Adding or removing a variant spreads the weights evenly again.
 */
export function AbVariantsInput({
  value,
  onChange,
  isReadOnly,
}: {
  value: Variant[];
  onChange: (variants: Variant[]) => void;
  isReadOnly: boolean;
}) {
  const total = value.reduce((sum, v) => sum + v.weight, 0);
  const setVariant = (index: number, patch: Partial<Variant>) =>
    onChange(value.map((v, i) => (i === index ? { ...v, ...patch } : v)));
  const respread = (variants: Variant[]) => {
    const weights = evenWeights(variants.length);
    return variants.map((v, i) => ({ ...v, weight: weights[i]! }));
  };
  const nextName = () => String.fromCharCode(65 + value.length);
  return (
    <Stack gap="xs">
      <Text size="sm" fw={500}>
        Variants
      </Text>
      {value.map((variant, index) => (
        <Group key={index} gap="xs" wrap="nowrap" align="flex-end">
          <TextInput
            aria-label={`Variant ${index + 1} name`}
            value={variant.name}
            maxLength={40}
            readOnly={isReadOnly}
            onChange={(event) => setVariant(index, { name: event.currentTarget.value })}
            style={{ flex: 1 }}
          />
          <NumberInput
            aria-label={`Variant ${index + 1} weight`}
            min={1}
            max={100}
            suffix="%"
            w={96}
            value={variant.weight}
            readOnly={isReadOnly}
            onChange={(n) =>
              setVariant(index, { weight: Math.min(100, Math.max(1, Math.trunc(Number(n) || 1))) })
            }
          />
          {!isReadOnly && value.length > 2 && (
            <ActionIcon
              variant="subtle"
              color="gray"
              size="lg"
              aria-label={`Remove variant ${variant.name || index + 1}`}
              onClick={() => onChange(respread(value.filter((_, i) => i !== index)))}
            >
              <IconX size={16} />
            </ActionIcon>
          )}
        </Group>
      ))}
      <Group justify="space-between">
        {!isReadOnly && value.length < flowLimits.maxAbVariants ? (
          <Button
            variant="subtle"
            size="compact-sm"
            leftSection={<IconPlus size={14} />}
            onClick={() => onChange(respread([...value, { name: nextName(), weight: 1 }]))}
          >
            Add variant
          </Button>
        ) : (
          <span />
        )}
        <Text size="xs" c={total === 100 ? 'dimmed' : 'orange.8'}>
          {total === 100
            ? 'Weights add up to 100%.'
            : `Weights add up to ${total}%; people are split in these proportions.`}
        </Text>
      </Group>
    </Stack>
  );
}
