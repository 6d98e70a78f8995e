import { displayDomain, reduceDomain, sendingMessages, type SenderDomain } from '@herald/contracts';
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
import { IconWorldWww } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { formatDateTime } from '../../lib/format.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListPage } from '../../ui/list-page.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { EmailSettingsNav } from './email-settings-nav.tsx';
import { useSenderAccess } from './sender-access.ts';
import { DomainStatusBadge } from './sender-badges.tsx';
import { useAddSenderDomain, useRemoveSenderDomain, useSenderDomains } from './senders.api.ts';

/** Asks 'Really delete?' before deleting a domain; shared with the domain's own page. */
export function confirmDeleteDomain(domain: SenderDomain, onConfirm: () => void) {
  modals.openConfirmModal({
    title: sendingMessages.reallyDelete,
    children: (
      <Text size="sm">
        {domain.displayName} will no longer verify the addresses on it. Addresses verified only through it
        stop sending until they are verified again.
      </Text>
    ),
    labels: { confirm: 'Delete', cancel: 'Cancel' },
    confirmProps: { color: 'red' },
    onConfirm,
  });
}

function AddDomainForm() {
  const add = useAddSenderDomain();
  const navigate = useNavigate();
  const [input, setInput] = useState('');
  const [showError, setShowError] = useState(false);
  const reduced = input.trim() ? reduceDomain(input) : null;
  const hint = !input.trim()
    ? 'Type the domain your emails come from, or paste your site’s address.'
    : reduced
      ? `We'll use ${displayDomain(reduced)}`
      : null;
  const error = input.trim() && !reduced && showError ? sendingMessages.invalidDomain : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (add.isPending) return;
    setShowError(true);
    if (!reduced) return;
    add.mutate(reduced, {
      onSuccess: ({ domain }) => navigate(`/settings/email/domains/${domain.id}`),
      onError: (failure) => notifyError(failure, sendingMessages.addDomainError),
    });
  };
  return (
    <Card withBorder radius="md" padding="lg">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <Title order={2} fz="lg">
            Add a domain
          </Title>
          <Group align="flex-start" gap="sm" wrap="wrap">
            <TextInput
              label="Domain"
              autoComplete="off"
              spellCheck={false}
              placeholder="yourcompany.com"
              value={input}
              onChange={(event) => setInput(event.currentTarget.value)}
              onBlur={() => setShowError(true)}
              description={
                <span aria-live="polite">{hint ?? (showError ? null : sendingMessages.invalidDomain)}</span>
              }
              error={error}
              inputWrapperOrder={['label', 'input', 'description', 'error']}
              style={{ flex: '1 1 260px' }}
            />
            <Button type="submit" size="md" mt={{ base: 0, xs: 27 }} loading={add.isPending}>
              Add domain
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function DomainRow({
  domain,
  canWrite,
  deleting,
  onDelete,
}: {
  domain: SenderDomain;
  canWrite: boolean;
  deleting: boolean;
  onDelete: () => void;
}) {
  return (
    <Table.Tr>
      <Table.Td>
        <Anchor
          component={Link}
          to={`/settings/email/domains/${domain.id}`}
          fw={600}
          size="sm"
          style={{ wordBreak: 'break-all' }}
        >
          {domain.displayName}
        </Anchor>
        {domain.displayName !== domain.domain && (
          <Text size="xs" c="dimmed">
            {domain.domain}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <DomainStatusBadge status={domain.status} />
      </Table.Td>
      <Table.Td>
        <Text size="sm" c="dimmed">
          {domain.checkedAt ? formatDateTime(domain.checkedAt) : 'Not checked yet'}
        </Text>
      </Table.Td>
      <Table.Td>
        <Group gap="xs" justify="flex-end" wrap="nowrap">
          <Button
            size="xs"
            variant="default"
            component={Link}
            to={`/settings/email/domains/${domain.id}`}
            aria-label={`DNS records of ${domain.displayName}`}
          >
            DNS records
          </Button>
          {canWrite && (
            <Button
              size="xs"
              variant="subtle"
              color="red"
              onClick={onDelete}
              loading={deleting}
              aria-label={`Delete ${domain.displayName}`}
            >
              Delete
            </Button>
          )}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/** /settings/email/domains: the domains that verify every address on them once their DNS records pass. */
export function SenderDomainsPage() {
  const { account, canWrite } = useSenderAccess();
  const domains = useSenderDomains();
  // Held here, not in the rows: a deleted row unmounts before its mutation's callbacks would run.
  const remove = useRemoveSenderDomain();
  const deleteDomain = (domain: SenderDomain) =>
    confirmDeleteDomain(domain, () =>
      remove.mutate(domain.id, {
        onSuccess: () => notifySuccess(`✅ ${domain.displayName} deleted.`),
        onError: (error) => notifyError(error, sendingMessages.deleteDomainError),
      }),
    );

  const sorted = [...(domains.data?.domains ?? [])].sort((a, b) =>
    a.displayName.localeCompare(b.displayName),
  );

  return (
    <ListPage
      maw={900}
      title="Domains"
      description="Verify a domain once and every address on it can send, signed with your own DKIM key."
      tabs={<EmailSettingsNav />}
      isReady={account.data !== undefined}
      readOnly={
        !canWrite &&
        'You can see the domains and their records. Adding, checking or deleting them needs the “Email settings” permission.'
      }
      toolbar={canWrite && <AddDomainForm />}
      query={domains}
      loadingLabel="Loading domains"
      errorTitle={sendingMessages.domainsLoadError}
      errorFallback={sendingMessages.domainsLoadError}
      isEmpty={sorted.length === 0}
      empty={
        <EmptyState
          icon={<IconWorldWww size={28} />}
          title="No domains yet"
          description="Add the domain your emails come from and publish the DNS records we show you. Mailbox providers then see your mail signed (DKIM), allowed (SPF) and covered by a policy (DMARC), as Gmail and Yahoo require of bulk senders, and every address on the domain can send."
        />
      }
    >
      <TableCard minWidth={640} aria-label="Domains">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Domain</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Last checked</Table.Th>
            <Table.Th>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {sorted.map((domain) => (
            <DomainRow
              key={domain.id}
              domain={domain}
              canWrite={canWrite}
              deleting={remove.isPending && remove.variables === domain.id}
              onDelete={() => deleteDomain(domain)}
            />
          ))}
        </Table.Tbody>
      </TableCard>
    </ListPage>
  );
}
