import { sessionMessages, teamMessages, type TeamMemberView } from '@herald/contracts';
import { Badge, Button, Card, Group, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconUserPlus, IconUsers } from '@tabler/icons-react';
import { usePopupParam } from '../../lib/use-popup-param.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListPage } from '../../ui/list-page.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { useAccess } from '../account/use-access.ts';
import { newMemberParam, TeamMemberModal } from './team-member-modal.tsx';
import { useIsTeamChanging, useRemoveTeamMember, useSignOutMember, useTeamMembers } from './team.api.ts';

export const teamMemberParam = 'team-member';

function byName(a: TeamMemberView, b: TeamMemberView): number {
  if (a.accountData.isOwner !== b.accountData.isOwner) return a.accountData.isOwner ? -1 : 1;
  return (a.name || a.email).localeCompare(b.name || b.email);
}

interface MemberProps {
  member: TeamMemberView;
  isYou: boolean;
  canWrite: boolean;
  isChanging: boolean;
  onOpen: () => void;
  onRemove: () => void;
  onSignOut: () => void;
}

function MemberName({ member, isYou }: Pick<MemberProps, 'member' | 'isYou'>) {
  return (
    <Text size="sm" fw={500}>
      {member.name || (
        <Text span c="dimmed">
          No name
        </Text>
      )}
      {isYou && (
        <Text span c="dimmed" size="sm">
          {' '}
          (you)
        </Text>
      )}
    </Text>
  );
}

function MemberBadges({ member }: Pick<MemberProps, 'member'>) {
  return (
    <Group gap={6} wrap="wrap">
      <Badge variant="light" color={member.accountData.isOwner ? 'indigo' : 'gray'}>
        {member.accountData.isOwner ? 'Owner' : 'Member'}
      </Badge>
      {member.invitationPending && (
        <Badge variant="outline" color="orange">
          Invitation pending
        </Badge>
      )}
    </Group>
  );
}

function MemberActions({ member, isYou, canWrite, isChanging, onOpen, onRemove, onSignOut }: MemberProps) {
  const displayName = member.name || member.email;
  return (
    <Group gap="xs" justify="flex-end" wrap="nowrap">
      <Button
        size="xs"
        variant="default"
        onClick={onOpen}
        aria-label={`${canWrite ? 'Edit' : 'View'} ${displayName}`}
      >
        {canWrite ? 'Edit' : 'View'}
      </Button>
      {canWrite && !isYou && !member.invitationPending && (
        <Button size="xs" variant="subtle" onClick={onSignOut} aria-label={`Sign out ${displayName}`}>
          Sign out
        </Button>
      )}
      {canWrite && !isYou && (
        <Button
          size="xs"
          variant="subtle"
          color="red"
          onClick={onRemove}
          disabled={isChanging}
          aria-label={`Remove ${displayName}`}
        >
          Remove
        </Button>
      )}
    </Group>
  );
}

function MemberRow(props: MemberProps) {
  return (
    <Table.Tr>
      <Table.Td>
        <MemberName member={props.member} isYou={props.isYou} />
      </Table.Td>
      <Table.Td>
        <Text size="sm" style={{ wordBreak: 'break-all' }}>
          {props.member.email}
        </Text>
      </Table.Td>
      <Table.Td>
        <MemberBadges member={props.member} />
      </Table.Td>
      <Table.Td>
        <MemberActions {...props} />
      </Table.Td>
    </Table.Tr>
  );
}

/** Narrow screens: one card per member instead of a table row. */
function MemberCard(props: MemberProps) {
  return (
    <Card withBorder radius="md" p="md" role="listitem">
      <Stack gap={6}>
        <MemberName member={props.member} isYou={props.isYou} />
        <Text size="sm" c="dimmed" style={{ wordBreak: 'break-all' }}>
          {props.member.email}
        </Text>
        <Group justify="space-between" gap="xs">
          <MemberBadges member={props.member} />
          <MemberActions {...props} />
        </Group>
      </Stack>
    </Card>
  );
}

/** /settings/team: the account's team members and the team-member popup. */
export function TeamPage() {
  const { account, isReady, canRead, canWrite } = useAccess(['team:read'], ['team:write']);
  const team = useTeamMembers({ enabled: canRead });
  const remove = useRemoveTeamMember();
  const signOut = useSignOutMember();
  const isChanging = useIsTeamChanging();
  const { value: modalParam, open: openModal, close: closeModal } = usePopupParam(teamMemberParam);
  const isNarrow = useIsNarrow('tablet');

  const confirmRemove = (member: TeamMemberView) =>
    modals.openConfirmModal({
      title: 'Remove team member?',
      children: (
        <Text size="sm">
          {member.name || member.email} ({member.email}) loses access to this account right away.
        </Text>
      ),
      labels: { confirm: 'Remove', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        remove.mutate(member.id, {
          onSuccess: () => notifySuccess(teamMessages.removed),
          onError: (error) => notifyError(error, teamMessages.removeFailed),
        }),
    });

  const confirmSignOut = (member: TeamMemberView) =>
    modals.openConfirmModal({
      title: 'Sign this team member out?',
      children: (
        <Text size="sm">
          {member.name || member.email} is signed out of this account on every device and has to sign in
          again.
        </Text>
      ),
      labels: { confirm: 'Sign out', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        signOut.mutate(member.id, {
          onSuccess: () => notifySuccess(sessionMessages.memberSignedOut),
          onError: (error) => notifyError(error, sessionMessages.memberSignOutFailed),
        }),
    });

  const members = [...(team.data?.teamMembers ?? [])].sort(byName);
  const propsOf = (member: TeamMemberView): MemberProps => ({
    member,
    isYou: member.id === account.data?.teamMemberId,
    canWrite,
    isChanging,
    onOpen: () => openModal(String(member.id)),
    onRemove: () => confirmRemove(member),
    onSignOut: () => confirmSignOut(member),
  });

  return (
    <ListPage
      title="Team Members"
      description="Invite teammates to this account and choose what each of them can do."
      actions={
        canWrite && (
          <Button
            leftSection={<IconUserPlus size={16} />}
            onClick={() => openModal(newMemberParam)}
            disabled={isChanging}
          >
            Invite team member
          </Button>
        )
      }
      isReady={isReady}
      gate={{
        canRead,
        title: "You can't see the team",
        description:
          'Seeing the team members of this account needs the “See team members” permission. Ask an owner of the account to give it to you.',
      }}
      readOnly={
        !canWrite &&
        'You can see the team. Inviting and changing team members needs the “Invite and manage team members” permission.'
      }
      query={team}
      loadingLabel="Loading team members"
      errorFallback="We couldn't load the team members."
      isEmpty={members.length === 0}
      empty={
        <EmptyState
          icon={<IconUsers size={28} />}
          title="No team members yet"
          description="Invite a teammate to work on this account with you."
        />
      }
      after={
        <TeamMemberModal
          param={modalParam}
          members={team.data?.teamMembers}
          isLoading={team.isPending}
          canWrite={canWrite}
          onClose={closeModal}
        />
      }
    >
      {isNarrow ? (
        <Stack gap="sm" role="list" aria-label="Team members">
          {members.map((member) => (
            <MemberCard key={member.id} {...propsOf(member)} />
          ))}
        </Stack>
      ) : (
        <TableCard>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Email</Table.Th>
              <Table.Th>Role</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {members.map((member) => (
              <MemberRow key={member.id} {...propsOf(member)} />
            ))}
          </Table.Tbody>
        </TableCard>
      )}
    </ListPage>
  );
}
