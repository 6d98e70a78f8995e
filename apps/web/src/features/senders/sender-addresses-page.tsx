import { EmailAddress, sendingMessages, type SenderAddress } from '@herald/contracts';
import {
  Anchor,
  Button,
  Card,
  Group,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconMailCheck } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { formatDateTime } from '../../lib/format.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListPage } from '../../ui/list-page.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { EmailSettingsNav } from './email-settings-nav.tsx';
import { AddressStatusBadge } from './sender-badges.tsx';
import { useSenderAccess } from './sender-access.ts';
import {
  useAddSenderAddress,
  useRemoveSenderAddress,
  useSendVerification,
  useSenderAddresses,
} from './senders.api.ts';

const domainsLink = (
  <Anchor component={Link} to="/settings/email/domains" inherit underline="always">
    verify your domain
  </Anchor>
);

function AddAddressForm() {
  const add = useAddSenderAddress();
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (add.isPending) return;
    const parsed = EmailAddress.safeParse(email);
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? 'Enter a valid email address.');
      return;
    }
    setError(null);
    add.mutate(parsed.data, {
      onSuccess: ({ message }) => {
        notifySuccess(message);
        setEmail('');
      },
      onError: (failure) => notifyError(failure, sendingMessages.addAddressError),
    });
  };
  return (
    <Card withBorder radius="md" padding="lg">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <Title order={2} fz="lg">
            Add a sender address
          </Title>
          <Group align="flex-start" gap="sm" wrap="wrap">
            <TextInput
              label="Email address"
              type="email"
              autoComplete="off"
              placeholder="news@yourcompany.com"
              description="We send a link to this address; it can send once someone there clicks it."
              value={email}
              onChange={(event) => (setEmail(event.currentTarget.value), setError(null))}
              error={error}
              inputWrapperOrder={['label', 'input', 'description', 'error']}
              style={{ flex: '1 1 260px' }}
            />
            <Button type="submit" size="md" mt={{ base: 0, xs: 27 }} loading={add.isPending}>
              Add address
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function sentLine(address: SenderAddress): string {
  if (address.status === 'verified')
    return address.data.verifiedBy === 'domain'
      ? 'Its domain is verified.'
      : `Added ${formatDateTime(address.createdAt)}`;
  return address.data.verificationSentAt
    ? `Verification email sent ${formatDateTime(address.data.verificationSentAt)}`
    : `Added ${formatDateTime(address.createdAt)}`;
}

interface RowActions {
  canWrite: boolean;
  /** The address whose verification mail is being sent, if any. */
  resending: string | null;
  onResend: (address: SenderAddress) => void;
  onRemove: (address: SenderAddress) => void;
}

function AddressRow({
  address,
  canWrite,
  resending,
  onResend,
  onRemove,
}: { address: SenderAddress } & RowActions) {
  return (
    <Table.Tr>
      <Table.Td>
        <Text size="sm" fw={500} style={{ wordBreak: 'break-all' }}>
          {address.email}
        </Text>
        <Text size="xs" c="dimmed">
          {sentLine(address)}
        </Text>
      </Table.Td>
      <Table.Td>
        <AddressStatusBadge address={address} />
      </Table.Td>
      {canWrite && (
        <Table.Td>
          <Group gap="xs" justify="flex-end" wrap="nowrap">
            {address.status === 'pending' && (
              <Button
                size="xs"
                variant="default"
                onClick={() => onResend(address)}
                loading={resending === address.email}
                aria-label={`Resend verification to ${address.email}`}
              >
                Resend verification
              </Button>
            )}
            <Button
              size="xs"
              variant="subtle"
              color="red"
              onClick={() => onRemove(address)}
              aria-label={`Remove ${address.email}`}
            >
              Remove
            </Button>
          </Group>
        </Table.Td>
      )}
    </Table.Tr>
  );
}

function AddressesTable({ emails, ...actions }: { emails: SenderAddress[] } & RowActions) {
  const sorted = [...emails].sort((a, b) => a.email.localeCompare(b.email));
  return (
    <TableCard minWidth={actions.canWrite ? 620 : 420} aria-label="Sender addresses">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Address</Table.Th>
          <Table.Th>Status</Table.Th>
          {actions.canWrite && (
            <Table.Th>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          )}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {sorted.map((address) => (
          <AddressRow key={address.email} address={address} {...actions} />
        ))}
      </Table.Tbody>
    </TableCard>
  );
}

/** /settings/email and /settings/email/addresses: the addresses emails may be sent from, each verified by a link or by its domain. */
export function SenderAddressesPage() {
  const { account, canWrite } = useSenderAccess();
  const isReady = account.data !== undefined;
  const addresses = useSenderAddresses();
  // Held here, not in the rows: a removed row unmounts before its mutation's callbacks would run.
  const resend = useSendVerification();
  const remove = useRemoveSenderAddress();

  const onResend = (address: SenderAddress) =>
    resend.mutate([address.email], {
      onSuccess: (result) => notifySuccess(result?.message || sendingMessages.verificationSent),
      onError: (error) => notifyError(error, sendingMessages.sendVerificationError),
    });
  const onRemove = (address: SenderAddress) =>
    modals.openConfirmModal({
      title: `Remove ${address.email}?`,
      children: (
        <Text size="sm">
          Emails, flows and broadcasts that send from this address stop sending until you add and verify it
          again.
        </Text>
      ),
      labels: { confirm: 'Remove', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        remove.mutate(address.email, {
          onSuccess: () => notifySuccess(sendingMessages.addressRemoved),
          onError: (error) => notifyError(error, sendingMessages.removeAddressError),
        }),
    });
  const resending = resend.isPending ? (resend.variables?.[0] ?? null) : null;

  const list = addresses.data?.emails ?? [];

  return (
    <ListPage
      maw={900}
      title="Sender Addresses"
      description="The addresses your emails, flows and broadcasts are sent from. Each must be verified before it can send."
      tabs={<EmailSettingsNav />}
      isReady={isReady}
      readOnly={
        !canWrite &&
        'You can see the sender addresses. Adding or removing them needs the “Email settings” permission.'
      }
      toolbar={canWrite && <AddAddressForm />}
      query={addresses}
      loadingLabel="Loading sender addresses"
      errorTitle={sendingMessages.addressesLoadError}
      errorFallback={sendingMessages.addressesLoadError}
      isEmpty={list.length === 0}
      empty={
        <EmptyState
          icon={<IconMailCheck size={28} />}
          title="No sender addresses yet"
          description={
            <>
              Herald sends only from addresses you have proved are yours. Gmail and Yahoo reject or junk bulk
              mail whose sender cannot be authenticated, so add the address your emails come from and click
              the link we send to it, or {domainsLink} to cover every address on it at once.
            </>
          }
        />
      }
      after={
        <Text size="sm" c="dimmed">
          Own the domain? Once you {domainsLink}, every address on it can send without a verification email.
        </Text>
      }
    >
      <AddressesTable
        emails={list}
        canWrite={canWrite}
        resending={resending}
        onResend={onResend}
        onRemove={onRemove}
      />
    </ListPage>
  );
}
