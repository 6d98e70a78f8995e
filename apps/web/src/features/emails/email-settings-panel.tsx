import type { ChangeEvent } from 'react';
import { Paper, SimpleGrid, TextInput } from '@mantine/core';
import type { EmailDraftState } from './email-draft.ts';

/** Subject, preheader and sender of the email being edited. */
export function EmailSettingsPanel({ draft, onChange, readOnly, errors }: { draft: EmailDraftState; onChange: (changes: Partial<EmailDraftState>) => void; readOnly: boolean; errors: { subject?: string; fromEmail?: string } }) {
  const input = (name: keyof EmailDraftState) => ({
    value: (draft[name] as string | null) ?? '',
    readOnly,
    onChange: (event: ChangeEvent<HTMLInputElement>) => onChange({ [name]: event.currentTarget.value }),
  });
  return (
    <Paper withBorder radius="md" p="md">
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm" verticalSpacing="sm">
        <TextInput label="Subject" withAsterisk {...input('subject')} error={errors.subject} placeholder="Welcome, {{ person.firstName }}" />
        <TextInput label="Preheader" description="Shown after the subject in most inboxes." {...input('preheader')} placeholder="A short summary" />
        <TextInput label="Reply-to" type="email" {...input('replyTo')} placeholder="Same as from email" />
        <TextInput label="From name" {...input('fromName')} />
        <TextInput label="From email" type="email" withAsterisk {...input('fromEmail')} error={errors.fromEmail} />
      </SimpleGrid>
    </Paper>
  );
}
