import {
  completeScopes,
  EmailAddress,
  scopeGroups,
  teamMessages,
  toggleScope,
  type ScopeState,
  type TeamMemberView,
} from '@herald/contracts';
import { Alert, Button, Checkbox, Group, Modal, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { scopeLabels } from './scope-labels.ts';
import { useInviteTeamMember, useIsTeamChanging, useUpdateTeamMember } from './team.api.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';

/** The value of the team-member query parameter that opens the invite form. */
export const newMemberParam = 'new';

function sameScopes(a: readonly ScopeState[], b: readonly ScopeState[]): boolean {
  const enabledA = new Set(a.filter((s) => s.enabled).map((s) => s.id));
  const enabledB = new Set(b.filter((s) => s.enabled).map((s) => s.id));
  return enabledA.size === enabledB.size && [...enabledA].every((id) => enabledB.has(id));
}

/** The scope checkboxes, grouped; a toggle brings what it needs along (toggleScope). */
export function ScopeCheckboxes({
  scopes,
  disabled,
  onChange,
}: {
  scopes: ScopeState[];
  disabled: boolean;
  onChange: (scopes: ScopeState[]) => void;
}) {
  const isEnabled = new Map(scopes.map((s) => [s.id, s.enabled]));
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="lg" verticalSpacing="md">
      {scopeGroups.map((group) => (
        <Stack key={group.name} gap={8} role="group" aria-label={group.name}>
          <Text size="sm" fw={600}>
            {group.name}
          </Text>
          {group.scopes.map((id) => (
            <Checkbox
              key={id}
              label={scopeLabels[id]}
              description={id}
              checked={isEnabled.get(id) ?? false}
              disabled={disabled}
              onChange={(event) => onChange(toggleScope(scopes, id, event.currentTarget.checked))}
            />
          ))}
        </Stack>
      ))}
    </SimpleGrid>
  );
}

interface FormProps {
  member: TeamMemberView | null;
  canWrite: boolean;
  onClose: () => void;
}

function TeamMemberForm({ member, canWrite, onClose }: FormProps) {
  const isNew = member === null;
  const invite = useInviteTeamMember();
  const update = useUpdateTeamMember();
  const isChanging = useIsTeamChanging();
  const initialScopes = completeScopes(member?.accountData.scopes ?? []);
  const [name, setName] = useState(member?.name ?? '');
  const [email, setEmail] = useState('');
  const [scopes, setScopes] = useState<ScopeState[]>(initialScopes);
  const [isSubmitted, setIsSubmitted] = useState(false);
  const isOwner = member?.accountData.isOwner ?? false;
  const isReadOnly = !canWrite;

  const emailCheck = EmailAddress.safeParse(email);
  const nameError = isSubmitted && isNew && !name.trim() ? 'Name is required.' : null;
  const emailError =
    isSubmitted && !emailCheck.success
      ? (emailCheck.error.issues[0]?.message ?? 'Enter a valid email address.')
      : null;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (isReadOnly || isChanging) return;
    setIsSubmitted(true);
    if (isNew) {
      if (!name.trim() || !emailCheck.success) return;
      invite.mutate(
        { name: name.trim(), email: emailCheck.data, scopes },
        {
          onSuccess: () => {
            notifySuccess(teamMessages.invited);
            onClose();
          },
          onError: (error) => notifyError(error, teamMessages.inviteFailed),
        },
      );
      return;
    }
    // The name is saved only when non-empty and changed (docs/team-and-accounts.md); owners' scopes never change.
    const trimmed = name.trim();
    const body = {
      id: member.id,
      name: trimmed && trimmed !== (member.name ?? '') ? trimmed : undefined,
      scopes: !isOwner && !sameScopes(scopes, initialScopes) ? scopes : undefined,
    };
    if (body.name === undefined && body.scopes === undefined) {
      onClose();
      return;
    }
    update.mutate(body, {
      onSuccess: () => {
        notifySuccess(teamMessages.updated);
        onClose();
      },
      onError: (error) => notifyError(error, teamMessages.updateFailed),
    });
  };

  const isSaving = invite.isPending || update.isPending;
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        {isReadOnly && (
          <Alert variant="light" color="gray" icon={<IconInfoCircle size={18} />}>
            You can see this team member. Changing team members needs the “Invite and manage team members”
            permission.
          </Alert>
        )}
        <TextInput
          label="Name"
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={nameError}
          readOnly={isReadOnly}
          data-autofocus
          maxLength={200}
        />
        {isNew ? (
          <TextInput
            label="Email"
            type="email"
            autoComplete="off"
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            error={emailError}
            maxLength={254}
          />
        ) : (
          <TextInput label="Email" value={member.email} readOnly variant="filled" />
        )}
        <Stack gap="xs">
          <Text fw={600}>Permissions</Text>
          {isOwner ? (
            <Text size="sm" c="dimmed">
              Owners have every permission.
            </Text>
          ) : (
            <ScopeCheckboxes scopes={scopes} disabled={isReadOnly} onChange={setScopes} />
          )}
        </Stack>
        <Group justify="flex-end" gap="sm" mt="sm">
          <Button variant="default" onClick={onClose}>
            {isReadOnly ? 'Close' : 'Cancel'}
          </Button>
          {!isReadOnly && (
            <Button type="submit" loading={isSaving} disabled={isChanging && !isSaving}>
              {isNew ? 'Send invitation' : 'Save changes'}
            </Button>
          )}
        </Group>
      </Stack>
    </form>
  );
}

interface TeamMemberModalProps {
  /** The team-member query parameter: 'new', a member id, or null when closed. */
  param: string | null;
  members: TeamMemberView[] | undefined;
  isLoading: boolean;
  canWrite: boolean;
  onClose: () => void;
}

/** The team-member popup, opened by ?team-member=new or ?team-member={id}. */
export function TeamMemberModal({ param, members, isLoading, canWrite, onClose }: TeamMemberModalProps) {
  const isSmall = useIsNarrow('phone');
  // Keep showing the last member while the popup animates closed.
  const [shownParam, setShownParam] = useState(param);
  if (param !== null && param !== shownParam) setShownParam(param);
  const current = param ?? shownParam;
  const isNew = current === newMemberParam;
  const member = isNew || current === null ? null : (members?.find((m) => String(m.id) === current) ?? null);
  const title = isNew
    ? 'Invite team member'
    : member
      ? canWrite
        ? 'Edit team member'
        : 'Team member'
      : 'Team member';

  let body;
  if (current === null) body = null;
  else if (isNew && !canWrite)
    body = (
      <Text c="dimmed">Inviting team members needs the “Invite and manage team members” permission.</Text>
    );
  else if (isNew) body = <TeamMemberForm key="new" member={null} canWrite={canWrite} onClose={onClose} />;
  else if (member)
    body = <TeamMemberForm key={member.id} member={member} canWrite={canWrite} onClose={onClose} />;
  else if (isLoading) body = <LoadingSpinner label="Loading team member" />;
  else body = <Text c="dimmed">{teamMessages.memberNotFound}</Text>;

  return (
    <Modal opened={param !== null} onClose={onClose} title={title} size="xl" fullScreen={isSmall} centered>
      {body}
    </Modal>
  );
}
