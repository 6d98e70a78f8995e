import { TextInput } from '@mantine/core';
import { IconTicket } from '@tabler/icons-react';

/** The marketplace code field of both forms (a visitor's registration and a signed-in member's redemption). */
export function CodeInput({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (value: string) => void;
  error: string | null;
}) {
  return (
    <TextInput
      label="Marketplace code"
      description="Letters, digits and dashes, as on your purchase. Case does not matter."
      placeholder="e.g. DEAL-7F3K-92QX"
      leftSection={<IconTicket size={18} aria-hidden />}
      autoComplete="off"
      autoCapitalize="characters"
      spellCheck={false}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      error={error}
      autoFocus
    />
  );
}
