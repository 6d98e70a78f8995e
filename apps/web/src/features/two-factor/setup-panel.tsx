import type { TwoFactorSetup } from '@herald/contracts';
import { Alert, Button, Code, Group, Image, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { useState, type FormEvent, type ReactNode } from 'react';
import { CopyButton } from '../../ui/copy-button.tsx';

/** Six digits, spaces allowed while typing; what the server takes. */
export function cleanCode(value: string): string {
  return value.replace(/\s/g, '');
}

/** The code field every two-factor form uses: digits, the phone's one-time-code autofill. */
export function CodeInput({
  value,
  onChange,
  label = 'Code from your authenticator app',
  autoFocus,
}: {
  value: string;
  onChange: (value: string) => void;
  label?: string;
  autoFocus?: boolean;
}) {
  return (
    <TextInput
      label={label}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={8}
      placeholder="123456"
      autoFocus={autoFocus}
    />
  );
}

/**
 * Add Herald to an authenticator app (the QR code, or the key typed in) and confirm with the first code. Used on the
 * profile and during a sign-in that an account's policy sends to setup.
 */
export function SetupPanel({
  setup,
  isPending,
  error,
  onSubmitCode,
  extra,
  submitLabel = 'Turn on two-factor',
}: {
  setup: TwoFactorSetup;
  isPending: boolean;
  error: string | null;
  onSubmitCode: (code: string) => void;
  extra?: ReactNode;
  submitLabel?: string;
}) {
  const [code, setCode] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const shownError = formError ?? error;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!/^\d{6}$/.test(cleanCode(code))) {
      setFormError('Enter the 6-digit code from your authenticator app.');
      return;
    }
    setFormError(null);
    onSubmitCode(cleanCode(code));
  };

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        <Text size="sm">
          1. Scan this QR code with an authenticator app (Google Authenticator, 1Password, Authy, or any app
          for time-based codes).
        </Text>
        <Group justify="center">
          <Image
            src={setup.qrCode}
            alt="QR code to add Herald to your authenticator app"
            w={200}
            h={200}
            fit="contain"
            bg="white"
          />
        </Group>
        <Stack gap={4}>
          <Text size="sm">Can't scan it? Type this key into the app instead:</Text>
          <Group gap={4} wrap="nowrap">
            <Code fz="sm" style={{ wordBreak: 'break-all' }} data-testid="two-factor-secret">
              {setup.secret}
            </Code>
            <CopyButton value={setup.secret.replace(/\s/g, '')} label="Copy key" />
          </Group>
        </Stack>
        <Text size="sm">2. Enter the 6-digit code the app shows.</Text>
        {shownError && (
          <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
            {shownError}
          </Alert>
        )}
        <CodeInput value={code} onChange={setCode} />
        {extra}
        <Button type="submit" loading={isPending}>
          {submitLabel}
        </Button>
      </Stack>
    </form>
  );
}
