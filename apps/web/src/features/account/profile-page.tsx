import { hasScopes } from '@herald/contracts';
import { Alert, Avatar, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { initialsOf } from '../../ui/company-logo.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { useUpdateTeamMember } from '../team/team.api.ts';
import { ChangePasswordSection } from '../sessions/change-password-section.tsx';
import { SessionsSection } from '../sessions/sessions-section.tsx';
import { TwoFactorSection } from '../two-factor/two-factor-section.tsx';
import { useAccount } from './account.api.ts';

const nameSaved = '✅ Name saved.';
const nameFailed = "Couldn't save your name.";

/** /profile, /settings/profile: the signed-in team member's own name and email. */
export function ProfilePage() {
  const account = useAccount();
  const update = useUpdateTeamMember();
  const member = account.data?.teamMember;
  const [name, setName] = useState<string | null>(null);

  if (!account.data || !member) return <LoadingSpinner />;
  const canEditName = hasScopes(member.accountData, ['team:write']);
  const value = name ?? member.name ?? '';
  const trimmed = value.trim();
  // Saved only when non-empty and changed (docs/team-and-accounts.md).
  const isChanged = trimmed !== '' && trimmed !== (member.name ?? '');

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!canEditName || !isChanged || update.isPending) return;
    update.mutate(
      { id: account.data.teamMemberId, name: trimmed },
      {
        onSuccess: () => {
          setName(null);
          notifySuccess(nameSaved);
        },
        onError: (error) => notifyError(error, nameFailed),
      },
    );
  };

  return (
    <Stack gap="lg" py="md" maw={640}>
      <Group gap="md" wrap="nowrap">
        <Avatar radius="xl" color="indigo" size={48}>
          {initialsOf(member.name || member.email)}
        </Avatar>
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Title order={1} fz={28}>
            Your Profile
          </Title>
          <Text c="dimmed" size="sm" truncate>
            {member.accountData.isOwner ? 'Owner' : 'Team member'} of {account.data.name || 'this account'}
          </Text>
        </Stack>
      </Group>
      <Card withBorder radius="md" p="lg">
        <form onSubmit={onSubmit} noValidate>
          <Stack gap="md">
            {!canEditName && (
              <Alert variant="light" color="gray" icon={<IconInfoCircle size={18} />}>
                Changing your name needs the “Invite and manage team members” permission. Ask an owner of the
                account to change it.
              </Alert>
            )}
            <TextInput
              label="Name"
              value={value}
              onChange={(event) => setName(event.currentTarget.value)}
              readOnly={!canEditName}
              maxLength={200}
              autoComplete="name"
            />
            <TextInput
              label="Email"
              value={member.email}
              readOnly
              variant="filled"
              description="The email you sign in with."
            />
            <TextInput
              label="Sign-in"
              value={member.data.createdWithGoogleSignin ? 'Google' : 'Email and password'}
              readOnly
              variant="filled"
            />
            {canEditName && (
              <Group justify="flex-end">
                <Button type="submit" loading={update.isPending} disabled={!isChanged}>
                  Save changes
                </Button>
              </Group>
            )}
          </Stack>
        </form>
      </Card>
      <ChangePasswordSection />
      <TwoFactorSection />
      <SessionsSection />
    </Stack>
  );
}
