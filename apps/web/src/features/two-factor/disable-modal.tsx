import { twoFactorMessages } from '@herald/contracts';
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
import { useState, type FormEvent } from 'react';
import { errorMessage } from '../../lib/api.ts';
import { notifySuccess } from '../../lib/notify.ts';
import { useDisableTwoFactor } from './two-factor.api.ts';

/** Turning two-factor off proves the user again: a code (or recovery code) or the password. */
export function DisableTwoFactorModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const disable = useDisableTwoFactor();
  const [proof, setProof] = useState<'code' | 'password'>('code');
  const [value, setValue] = useState('');
  const [formError, setFormError] = useState<string | null>(null);

  const close = () => {
    setValue('');
    setFormError(null);
    disable.reset();
    onClose();
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (disable.isPending) return;
    if (!value.trim()) {
      setFormError(proof === 'code' ? 'Enter a code or a recovery code.' : 'Enter your password.');
      return;
    }
    setFormError(null);
    disable.mutate(proof === 'code' ? { code: value.trim() } : { password: value }, {
      onSuccess: () => {
        notifySuccess(twoFactorMessages.disabled);
        close();
      },
      onError: (error) => setFormError(errorMessage(error, twoFactorMessages.wrongCodeOrPassword)),
    });
  };

  return (
    <Modal opened={opened} onClose={close} title="Turn off two-factor sign-in?" centered>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
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
            <Button type="submit" color="red" loading={disable.isPending}>
              Turn off
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
