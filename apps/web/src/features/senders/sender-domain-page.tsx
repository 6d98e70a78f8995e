import { sendingMessages, type DnsRecordCheck, type SenderDomain } from '@herald/contracts';
import { Alert, Anchor, Badge, Button, Card, Code, Group, List, Stack, Text, Title } from '@mantine/core';
import {
  IconAlertTriangle,
  IconCircleCheck,
  IconInfoCircle,
  IconLock,
  IconWorldOff,
} from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { formatDateTime } from '../../lib/format.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { CopyButton } from '../../ui/copy-button.tsx';
import { DetailPage, isBadId } from '../../ui/detail-page.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { EmailSettingsNav } from './email-settings-nav.tsx';
import { useSenderAccess } from './sender-access.ts';
import { DomainStatusBadge, RecordStatusBadge } from './sender-badges.tsx';
import { confirmDeleteDomain } from './sender-domains-page.tsx';
import { useRemoveSenderDomain, useSenderDomain, useVerifySenderDomain } from './senders.api.ts';

const kinds: Record<DnsRecordCheck['kind'], { title: string; purpose: string }> = {
  dkim: {
    title: 'DKIM',
    purpose: 'Your domain’s public key: mailbox providers check the signature on every email against it.',
  },
  spf: {
    title: 'SPF',
    purpose:
      'Names the servers allowed to send for your domain, so mail from Herald is not taken for forged.',
  },
  dmarc: {
    title: 'DMARC',
    purpose:
      'Tells mailbox providers what to do with mail that fails DKIM and SPF. Gmail and Yahoo require it of bulk senders.',
  },
  returnPath: {
    title: 'Return path',
    purpose: 'Bounces come back through Herald, and SPF lines up with your domain.',
  },
};

const backLink = (
  <Anchor component={Link} to="/settings/email/domains" size="sm" c="dimmed">
    ← Domains
  </Anchor>
);

/** A value to publish, in monospace, with a copy button named for what it copies. */
function CopyableValue({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={4}>
      <Text size="xs" fw={600} c="dimmed" tt="uppercase">
        {label}
      </Text>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        <Code block style={{ flex: 1, minWidth: 0, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }} fz="sm">
          {value}
        </Code>
        <CopyButton value={value} label={`Copy ${label}`} />
      </Group>
    </Stack>
  );
}

function RecordCard({ record, domain }: { record: DnsRecordCheck; domain: SenderDomain }) {
  const kind = kinds[record.kind];
  const isSpfMechanism = record.kind === 'spf' && !record.value.startsWith('v=spf1');
  const showFound = record.status !== 'pass' && record.status !== 'unchecked' && record.found.length > 0;
  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby={`record-${record.kind}`}>
      <Stack gap="md">
        <Group justify="space-between" align="flex-start" gap="sm">
          <Stack gap={2} style={{ flex: '1 1 240px' }}>
            <Group gap="xs">
              <Title order={3} fz="md" id={`record-${record.kind}`}>
                {kind.title}
              </Title>
              <Badge variant="outline" color="gray" radius="sm">
                {record.type}
              </Badge>
              <Text size="xs" c="dimmed">
                {record.required ? 'Required' : 'Recommended'}
              </Text>
            </Group>
            <Text size="sm" c="dimmed">
              {kind.purpose}
            </Text>
          </Stack>
          <RecordStatusBadge status={record.status} />
        </Group>
        <CopyableValue label={`${kind.title} host`} value={record.host} />
        <CopyableValue label={`${kind.title} value`} value={record.value} />
        {isSpfMechanism && (
          <Text size="sm" c="dimmed">
            {domain.displayName} already has an SPF record: add this to it rather than publishing a second one
            (a domain may have only one).
          </Text>
        )}
        {record.problems.length > 0 && (
          <Alert
            variant="light"
            color={record.status === 'unknown' ? 'orange' : 'red'}
            icon={<IconAlertTriangle size={18} />}
            p="sm"
          >
            <List size="sm" spacing={4}>
              {record.problems.map((problem) => (
                <List.Item key={problem}>{problem}</List.Item>
              ))}
            </List>
          </Alert>
        )}
        {showFound && (
          <Stack gap={4}>
            <Text size="xs" fw={600} c="dimmed" tt="uppercase">
              Found at this host
            </Text>
            {record.found.map((value) => (
              <Code key={value} block fz="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                {value}
              </Code>
            ))}
          </Stack>
        )}
      </Stack>
    </Card>
  );
}

/** The server's verdict on the last check: verified, something to change, or a DNS server that did not answer. */
function CheckResult({ message }: { message: string }) {
  const color =
    message === sendingMessages.domainVerified
      ? 'green'
      : message === sendingMessages.domainCouldNotCheck
        ? 'orange'
        : 'red';
  const icon = color === 'green' ? <IconCircleCheck size={18} /> : <IconInfoCircle size={18} />;
  return (
    <Alert variant="light" color={color} icon={icon} role="status">
      {message}
    </Alert>
  );
}

function DomainView({ domain, canWrite }: { domain: SenderDomain; canWrite: boolean }) {
  const verify = useVerifySenderDomain();
  const remove = useRemoveSenderDomain();
  const navigate = useNavigate();
  const [result, setResult] = useState<string | null>(null);
  const check = () => {
    setResult(null);
    verify.mutate(domain.id, {
      onSuccess: ({ message }) => setResult(message),
      onError: (error) => notifyError(error, sendingMessages.verifyDomainError),
    });
  };
  const deleteDomain = () =>
    confirmDeleteDomain(domain, () =>
      remove.mutate(domain.id, {
        onSuccess: () => {
          notifySuccess(`✅ ${domain.displayName} deleted.`);
          void navigate('/settings/email/domains', { replace: true });
        },
        onError: (error) => notifyError(error, sendingMessages.deleteDomainError),
      }),
    );
  const required = domain.records.filter((record) => record.required);
  const optional = domain.records.filter((record) => !record.required);
  const checked = domain.checkedAt ? `Last checked ${formatDateTime(domain.checkedAt)}.` : 'Not checked yet.';

  return (
    <Stack gap="lg" py="md" maw={900}>
      <PageHeader
        title={domain.displayName}
        badge={<DomainStatusBadge status={domain.status} />}
        back={backLink}
        description="Publish these records at your DNS provider, then check them."
        actions={
          canWrite && (
            <Group gap="sm">
              <Button variant="subtle" color="red" onClick={deleteDomain} loading={remove.isPending}>
                Delete
              </Button>
              <Button onClick={check} loading={verify.isPending}>
                Check DNS records
              </Button>
            </Group>
          )
        }
      />
      <EmailSettingsNav />
      {!canWrite && (
        <Alert variant="light" color="gray" icon={<IconLock size={18} />}>
          You can see the records. Checking or deleting the domain needs the “Email settings” permission.
        </Alert>
      )}
      {result && <CheckResult message={result} />}
      <Text size="sm" c="dimmed">
        {checked} Hosts are shown in full. If your DNS provider adds {domain.domain} by itself, enter only the
        part before it. New records can take up to an hour to be seen.
      </Text>
      {required.map((record) => (
        <RecordCard key={record.kind} record={record} domain={domain} />
      ))}
      {optional.length > 0 && (
        <>
          <Title order={2} fz="lg">
            Recommended
          </Title>
          {optional.map((record) => (
            <RecordCard key={record.kind} record={record} domain={domain} />
          ))}
        </>
      )}
    </Stack>
  );
}

/** /settings/email/domains/:id: the DNS records to publish for one domain, their check results, and the check itself. */
export function SenderDomainPage() {
  const params = useParams();
  const id = Number(params.id);
  const { account, canWrite } = useSenderAccess();
  const domain = useSenderDomain(id);
  return (
    <DetailPage
      query={domain}
      loadingLabel="Loading domain"
      isReady={account.data !== undefined}
      isMissing={isBadId(id)}
      notFound={{
        icon: <IconWorldOff size={28} />,
        title: sendingMessages.domainNotFound,
        description: 'It may have been deleted, or it belongs to another account.',
        back: { to: '/settings/email/domains', label: 'See all domains' },
      }}
      errorTitle={sendingMessages.domainsLoadError}
      errorFallback={sendingMessages.domainsLoadError}
      top={<PageHeader title="Domain" back={backLink} description="DNS records for one sending domain." />}
      maw={900}
    >
      {(data) => <DomainView domain={data.domain} canWrite={canWrite} />}
    </DetailPage>
  );
}
