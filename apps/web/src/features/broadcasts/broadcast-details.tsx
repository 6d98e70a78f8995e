import type { EmailSummary } from '@herald/contracts';
import { Anchor, Card, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconMail } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';

interface BroadcastDetailsProps {
  name: string;
  emailId: number | null;
  emails: EmailSummary[] | undefined;
  emailsError: string | null;
  readOnly: boolean;
  onRename: (name: string) => void;
  onChooseEmail: (emailId: number | null) => void;
}

/** The broadcast's name (saved on Enter or when the field is left) and its email, picked from the account's emails. */
export function BroadcastDetails({
  name,
  emailId,
  emails,
  emailsError,
  readOnly,
  onRename,
  onChooseEmail,
}: BroadcastDetailsProps) {
  const [draftName, setDraftName] = useState(name);
  useEffect(() => setDraftName(name), [name]);
  const commitName = () => {
    const trimmed = draftName.trim();
    if (!trimmed) return setDraftName(name);
    if (trimmed !== name) onRename(trimmed);
  };
  const choices = (emails ?? []).map((email) => ({ value: String(email.id), label: email.name }));
  // The chosen email may be archived meanwhile: it stays shown.
  if (emailId !== null && !choices.some((choice) => choice.value === String(emailId)))
    choices.push({ value: String(emailId), label: `Email ${emailId}` });
  const chosen = emails?.find((email) => email.id === emailId);

  return (
    <Card withBorder radius="md" p="lg">
      <Stack gap="md">
        <Group gap="xs">
          <IconMail size={18} aria-hidden />
          <Title order={2} fz="lg">
            Content
          </Title>
        </Group>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            commitName();
          }}
        >
          <TextInput
            label="Broadcast name"
            description="Only your team sees it."
            value={draftName}
            onChange={(event) => setDraftName(event.currentTarget.value)}
            onBlur={commitName}
            readOnly={readOnly}
            maxLength={200}
          />
        </form>
        <Select
          label="Email"
          placeholder={emails ? 'Choose an email' : 'Loading emails…'}
          data={choices}
          value={emailId === null ? null : String(emailId)}
          onChange={(value) => onChooseEmail(value ? Number(value) : null)}
          searchable
          readOnly={readOnly}
          nothingFoundMessage="No email of that name"
          error={emailsError}
          description={
            chosen
              ? `Subject: ${chosen.subject || 'none'} · From: ${chosen.fromEmail || 'nobody'}`
              : undefined
          }
        />
        <Group gap="md">
          {emailId !== null && (
            <Anchor component={Link} to={`/emails/${emailId}`} size="sm" td="underline">
              Open the email
            </Anchor>
          )}
          {!readOnly && (
            <Anchor component={Link} to="/emails?new=1" size="sm" td="underline">
              Create a new email
            </Anchor>
          )}
        </Group>
        {emails && emails.length === 0 && (
          <Text size="sm" c="dimmed">
            This account has no emails yet. Create one, then come back to choose it.
          </Text>
        )}
      </Stack>
    </Card>
  );
}
