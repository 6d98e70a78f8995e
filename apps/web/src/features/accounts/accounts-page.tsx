import { teamMessages, type AccountListItem } from '@herald/contracts';
import { Badge, Button, Card, Group, Stack, Text, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { modals } from '@mantine/modals';
import { IconBuildingStore, IconPlus } from '@tabler/icons-react';
import type { z } from 'zod';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { CompanyLogo } from '../../ui/company-logo.tsx';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListPage } from '../../ui/list-page.tsx';
import { useAccess } from '../account/use-access.ts';
import { useDeleteAccount, useMyAccounts, useSwitchAccount } from './accounts.api.ts';
import { NewAccountModal } from './new-account-modal.tsx';

type Item = z.infer<typeof AccountListItem>;

const nameOf = (item: Item) => item.name || item.site || `Account ${item.id}`;

function AccountRow({
  item,
  isBusy,
  onSwitch,
  onDelete,
}: {
  item: Item;
  isBusy: boolean;
  onSwitch: () => void;
  onDelete: () => void;
}) {
  const name = nameOf(item);
  return (
    <Card withBorder radius="md" p="md" data-testid="account-row">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="md" wrap="nowrap" style={{ minWidth: 0, flex: '1 1 240px' }}>
          <CompanyLogo companyName={item.name ?? item.site} logo={item.logo} size={44} />
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Group gap={6} wrap="wrap">
              <Text fw={600} truncate>
                {name}
              </Text>
              {item.isOwner && (
                <Badge variant="light" color="indigo" size="sm">
                  Owner
                </Badge>
              )}
              {item.isCurrent && (
                <Badge variant="filled" color="teal" size="sm">
                  Current
                </Badge>
              )}
              {item.parentAccountId !== null && (
                <Badge variant="outline" color="gray" size="sm">
                  Sub-account
                </Badge>
              )}
            </Group>
            <Text size="sm" c="dimmed" truncate>
              {item.site || 'No site'}
            </Text>
          </Stack>
        </Group>
        <Group gap="xs" wrap="nowrap">
          {!item.isCurrent && (
            <Button
              size="xs"
              variant="light"
              onClick={onSwitch}
              disabled={isBusy}
              aria-label={`Switch to ${name}`}
            >
              Switch
            </Button>
          )}
          {item.isOwner && !item.isCurrent && (
            <Button
              size="xs"
              variant="subtle"
              color="red"
              onClick={onDelete}
              disabled={isBusy}
              aria-label={`Delete ${name}`}
            >
              Delete
            </Button>
          )}
        </Group>
      </Group>
    </Card>
  );
}

/** /settings/accounts: the user's accounts, switching, deleting and new sub-accounts. */
export function AccountsPage() {
  const accounts = useMyAccounts();
  const switchAccount = useSwitchAccount();
  const deleteAccount = useDeleteAccount();
  const [isNewOpen, newModal] = useDisclosure(false);
  const canCreate = useAccess([], ['subaccounts:write']).canWrite;
  const isBusy = switchAccount.isPending || deleteAccount.isPending;

  const onSwitch = (item: Item) =>
    switchAccount.mutate(item.id, { onError: (error) => notifyError(error, teamMessages.couldNotSwitch) });

  const onDelete = (item: Item) =>
    modals.openConfirmModal({
      title: `Delete ${nameOf(item)}?`,
      children: (
        <Text size="sm">
          This deletes the account with its people, flows, emails and team for good. It can't be undone.
        </Text>
      ),
      labels: { confirm: 'Delete account', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        deleteAccount.mutate(item.id, {
          onSuccess: (result) =>
            notifySuccess(
              result.result === 'deleted'
                ? teamMessages.accountDeleted
                : `✅ ${teamMessages.accountDeleteInProgress}`,
            ),
          onError: (error) => notifyError(error, teamMessages.errorDeletingAccount),
        }),
    });

  const newButton = (
    <Button leftSection={<IconPlus size={16} />} onClick={newModal.open} disabled={!canCreate}>
      New account
    </Button>
  );

  const list = [...(accounts.data?.accounts ?? [])].sort(
    (a, b) => Number(b.isCurrent) - Number(a.isCurrent) || nameOf(a).localeCompare(nameOf(b)),
  );

  return (
    <ListPage
      title="Manage Accounts"
      description="The accounts you belong to. Switch between them or create a sub-account."
      actions={
        canCreate ? (
          newButton
        ) : (
          <Tooltip label="Creating accounts needs the “Create sub-accounts” permission." withArrow>
            <span>{newButton}</span>
          </Tooltip>
        )
      }
      query={accounts}
      loadingLabel="Loading accounts"
      errorTitle={teamMessages.errorGettingAccounts}
      errorFallback={teamMessages.errorGettingAccounts}
      isEmpty={list.length === 0}
      empty={
        <EmptyState
          icon={<IconBuildingStore size={28} />}
          title="No accounts"
          description="You don't belong to any account yet."
        />
      }
      after={<NewAccountModal opened={isNewOpen} onClose={newModal.close} />}
    >
      <Stack gap="sm">
        {list.map((item) => (
          <AccountRow
            key={item.id}
            item={item}
            isBusy={isBusy}
            onSwitch={() => onSwitch(item)}
            onDelete={() => onDelete(item)}
          />
        ))}
      </Stack>
    </ListPage>
  );
}
