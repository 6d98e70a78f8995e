import {
  Alert,
  Button,
  Group,
  Modal,
  PasswordInput,
  SegmentedControl,
  Stack,
  TextInput,
} from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { useState, type FormEvent, type ReactNode } from 'react';
import { errorMessage } from '../../lib/api.ts';

export type Proof = { code: string } | { password: string };

interface ProofModalProps {
  opened: boolean;
  onClose: () => void;
  title: string;
  children?: ReactNode;
  submitLabel: string;
  color?: string;
  isPending: boolean;
  /** Sends the proof; a rejection's message is shown in the modal (or `fallbackError`). */
  onSubmit: (proof: Proof) => Promise<unknown>;
  fallbackError: string;
}

/** A change to two-factor sign-in proves the user again: a code from the app (or a recovery code), or the password. */
export function ProofModal(props: ProofModalProps) {
  const { opened, onClose, title, children, submitLabel, color, isPending, onSubmit, fallbackError } = props;
  const [proof, setProof] = useState<'code' | 'password'>('code');
  const [value, setValue] = useState('');
  const [formError, setFormError] = useState<string | null>(null);

  const close = () => {
    setValue('');
    setFormError(null);
    onClose();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (isPending) return;
    if (!value.trim()) {
      setFormError(proof === 'code' ? 'Enter a code or a recovery code.' : 'Enter your password.');
      return;
    }
    setFormError(null);
    onSubmit(proof === 'code' ? { code: value.trim() } : { password: value }).then(
      () => {
        setValue('');
        setFormError(null);
      },
      (error: unknown) => setFormError(errorMessage(error, fallbackError)),
    );
  };

  return (
    <Modal opened={opened} onClose={close} title={title} centered>
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          {children}
          <SegmentedControl
            value={proof}
            onChange={(next) => {
              setProof(next as 'code' | 'password');
              setValue('');
              setFormError(null);
            }}
            data={[
              { value: 'code', label: 'Code' },
              { value: 'password', label: 'Password' },
            ]}
          />
          {formError && (
            <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
              {formError}
            </Alert>
          )}
          {proof === 'code' ? (
            <TextInput
              label="Code from your app, or a recovery code"
              value={value}
              onChange={(event) => setValue(event.currentTarget.value)}
              autoComplete="one-time-code"
              data-autofocus
            />
          ) : (
            <PasswordInput
              label="Your password"
              value={value}
              onChange={(event) => setValue(event.currentTarget.value)}
              autoComplete="current-password"
              data-autofocus
            />
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" color={color} loading={isPending}>
              {submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
