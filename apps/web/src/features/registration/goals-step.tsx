import type { Account } from '@herald/contracts';
import { Button, Stack, TextInput, Textarea } from '@mantine/core';
import { useState, type FormEvent, type KeyboardEvent } from 'react';
import { FormError } from './form-error.tsx';
import { StepHeading } from './registration-layout.tsx';
import { useStepSave } from './use-step-save.ts';

export function GoalsStep({ account, onDone }: { account: Account; onDone: (account: Account) => void }) {
  const [goals, setGoals] = useState(account.goals ?? '');
  const [previousTool, setPreviousTool] = useState(account.previousTool ?? '');
  const [goalsError, setGoalsError] = useState<string | null>(null);
  const save = useStepSave(onDone);

  const submit = () => {
    if (!goals.trim()) {
      setGoalsError('Please tell us what you want to achieve.');
      return;
    }
    setGoalsError(null);
    save.submit({
      goals: goals.trim(),
      ...(previousTool.trim() ? { previousTool: previousTool.trim() } : {}),
      flags: { hasFilledGoals: true },
    });
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit();
  };

  // Enter adds a line in the text area; Ctrl/Cmd+Enter submits like the other steps' Enter.
  const onGoalsKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) {
      event.preventDefault();
      submit();
    }
  };

  return (
    <>
      <StepHeading
        title="Almost there! Tell us about your goals."
        description="What should Herald help you do?"
      />
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <FormError>{save.error}</FormError>
          <Textarea
            label="Goals"
            placeholder="e.g. Onboard trial users and turn more of them into customers"
            autosize
            minRows={3}
            maxRows={8}
            value={goals}
            onChange={(event) => setGoals(event.currentTarget.value)}
            onKeyDown={onGoalsKeyDown}
            error={goalsError}
            autoFocus
          />
          <TextInput
            label="Previous tool"
            description="Optional: the email or automation tool you used before."
            placeholder="e.g. a newsletter tool or a spreadsheet"
            value={previousTool}
            onChange={(event) => setPreviousTool(event.currentTarget.value)}
          />
          <Button type="submit" size="md" fullWidth loading={save.isPending}>
            To Final Step
          </Button>
        </Stack>
      </form>
    </>
  );
}
