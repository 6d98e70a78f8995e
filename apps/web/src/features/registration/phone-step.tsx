import type { Account } from '@herald/contracts';
import { Button, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { FormError } from './form-error.tsx';
import { StepHeading } from './registration-layout.tsx';
import { useStepSave } from './use-step-save.ts';

export function PhoneStep({ account, onDone }: { account: Account; onDone: (account: Account) => void }) {
  const [phone, setPhone] = useState(account.phone ?? '');
  const save = useStepSave(onDone);
  const isEmpty = !phone.trim();

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (isEmpty) return;
    save.submit({ phone: phone.trim() });
  };

  return (
    <>
      <StepHeading
        title={`Hey ${account.name ?? 'there'}! Can we get your phone number?`}
        description="We'll only use it if you ask for help setting things up."
      />
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <FormError>{save.error}</FormError>
          <TextInput
            label="Phone"
            placeholder="+1 555 010 0000"
            type="tel"
            autoComplete="tel"
            value={phone}
            onChange={(event) => setPhone(event.currentTarget.value)}
            autoFocus
          />
          <Button type="submit" size="md" fullWidth disabled={isEmpty} loading={save.isPending}>
            Continue
          </Button>
        </Stack>
      </form>
    </>
  );
}
