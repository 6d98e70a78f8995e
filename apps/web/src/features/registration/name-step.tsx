import type { Account } from '@herald/contracts';
import { Button, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { FormError } from './form-error.tsx';
import { StepHeading } from './registration-layout.tsx';
import { useStepSave } from './use-step-save.ts';

export function NameStep({ account, onDone }: { account: Account; onDone: (account: Account) => void }) {
  const [name, setName] = useState(account.name ?? '');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const save = useStepSave(onDone);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) {
      setFieldError('Please enter your name.');
      return;
    }
    setFieldError(null);
    save.submit({ name: name.trim() });
  };

  return (
    <>
      <StepHeading title="Welcome! What's your name?" description="So we know how to greet you." />
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <FormError>{save.error}</FormError>
          <TextInput
            label="Name"
            placeholder="Jane Doe"
            autoComplete="name"
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={fieldError}
            autoFocus
          />
          <Button type="submit" size="md" fullWidth loading={save.isPending}>
            Continue
          </Button>
        </Stack>
      </form>
    </>
  );
}
