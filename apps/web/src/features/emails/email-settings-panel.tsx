import type { ChangeEvent } from 'react';
import { Paper, Select, SimpleGrid, TextInput } from '@mantine/core';
import { useCategories } from '../categories/categories.api.ts';
import type { EmailDraftState } from './email-draft.ts';

const defaultCategory = 'default';

/** The account's categories to file the email under: the live ones, plus its own if since archived. */
function useCategoryOptions(current: number | null) {
  const categories = useCategories().data?.categories ?? [];
  const defaultName = categories.find((c) => c.isDefault)?.name;
  return [
    { value: defaultCategory, label: defaultName ? `Default (${defaultName})` : 'Default' },
    ...categories
      .filter((c) => !c.isArchived || c.id === current)
      .map((c) => ({ value: String(c.id), label: c.isArchived ? `${c.name} (archived)` : c.name })),
  ];
}

/** Subject, preheader and sender of the email being edited. */
export function EmailSettingsPanel({
  draft,
  onChange,
  readOnly,
  errors,
}: {
  draft: EmailDraftState;
  onChange: (changes: Partial<EmailDraftState>) => void;
  readOnly: boolean;
  errors: { subject?: string; fromEmail?: string };
}) {
  const input = (name: keyof EmailDraftState) => ({
    value: (draft[name] as string | null) ?? '',
    readOnly,
    onChange: (event: ChangeEvent<HTMLInputElement>) => onChange({ [name]: event.currentTarget.value }),
  });
  const categoryOptions = useCategoryOptions(draft.categoryId);
  return (
    <Paper withBorder radius="md" p="md">
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm" verticalSpacing="sm">
        <TextInput
          label="Subject"
          withAsterisk
          {...input('subject')}
          error={errors.subject}
          placeholder="Welcome, {{ person.firstName }}"
        />
        <TextInput
          label="Preheader"
          description="Shown after the subject in most inboxes."
          {...input('preheader')}
          placeholder="A short summary"
        />
        <TextInput label="Reply-to" type="email" {...input('replyTo')} placeholder="Same as from email" />
        <TextInput label="From name" {...input('fromName')} />
        <TextInput
          label="From email"
          type="email"
          withAsterisk
          {...input('fromEmail')}
          error={errors.fromEmail}
        />
        <Select
          label="Category"
          description="People who opted out of it don't get this email."
          data={categoryOptions}
          value={draft.categoryId === null ? defaultCategory : String(draft.categoryId)}
          onChange={(value) =>
            onChange({ categoryId: !value || value === defaultCategory ? null : Number(value) })
          }
          readOnly={readOnly}
          allowDeselect={false}
        />
      </SimpleGrid>
    </Paper>
  );
}
