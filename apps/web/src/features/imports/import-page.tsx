import { hasScopes, importMessages } from '@herald/contracts';
import { Alert, Anchor, Button, Card, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import {
  IconAlertCircle,
  IconArrowLeft,
  IconDownload,
  IconFileImport,
  IconLock,
  IconPlus,
} from '@tabler/icons-react';
import { Link, useParams } from 'react-router';
import { errorMessage, isApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { useAccount } from '../account/account.api.ts';
import { countLabels, ImportProgress, ImportStatusBadge } from './import-status.tsx';
import { failuresUrl, importListMessages, isRunning, useImport } from './imports.api.ts';
import { LoadError } from '../../ui/load-error.tsx';

/** /people/imports/{id}: one import's progress, counts and failed rows. */
export function ImportPage() {
  const params = useParams();
  const id = Number(params.id);
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canRead = accountData ? hasScopes(accountData, ['people:read']) : false;
  const canWrite = accountData ? hasScopes(accountData, ['people:write']) : false;
  const query = useImport(id, { enabled: canRead });

  if (!account.data) return <LoadingSpinner />;

  const back = (
    <Group gap="md">
      <Anchor component={Link} to="/people" size="sm" c="dimmed">
        <Group gap={4} component="span">
          <IconArrowLeft size={14} /> People
        </Group>
      </Anchor>
      <Anchor component={Link} to="/people/imports" size="sm" c="dimmed">
        All imports
      </Anchor>
    </Group>
  );

  if (!canRead)
    return (
      <Stack gap="lg" py="md">
        {back}
        <EmptyState
          icon={<IconLock size={28} />}
          title="You can't see imports"
          description="Seeing imports needs the “See people” permission. Ask an owner of the account to give it to you."
        />
      </Stack>
    );

  if (
    !Number.isInteger(id) ||
    id <= 0 ||
    (query.isError && isApiError(query.error) && query.error.statusCode === 404)
  )
    return (
      <Stack gap="lg" py="md">
        {back}
        <EmptyState
          icon={<IconFileImport size={28} />}
          title={importMessages.importNotFound}
          description="It may belong to another account. The list of imports shows the ones in this account."
          action={
            <Button component={Link} to="/people/imports" variant="default">
              All imports
            </Button>
          }
        />
      </Stack>
    );

  if (query.isError)
    return (
      <Stack gap="lg" py="md">
        {back}
        <LoadError
          message={errorMessage(query.error, importListMessages.loadOne)}
          onRetry={() => void query.refetch()}
        />
      </Stack>
    );

  if (!query.data) return <LoadingSpinner label="Loading import" />;
  const imp = query.data;
  const running = isRunning(imp);

  return (
    <Stack gap="lg" py="md">
      {back}
      <PageHeader
        title={imp.name}
        badge={<ImportStatusBadge imp={imp} />}
        description={
          <>
            Started {formatDateTime(imp.createdAt)}
            {imp.finishedAt ? ` · finished ${formatDateTime(imp.finishedAt)}` : ''}
            {' · '}
            {imp.existingPeopleStrategy === 'update'
              ? 'Existing people are updated'
              : 'Existing people are skipped'}
          </>
        }
        actions={
          canWrite && (
            <Button
              component={Link}
              to="/people/imports/new"
              variant="default"
              leftSection={<IconPlus size={16} />}
            >
              New import
            </Button>
          )
        }
      />

      <Card withBorder radius="md" p="lg">
        <Stack gap="md">
          <ImportProgress imp={imp} withLabel />
          {running && (
            <Text size="sm" c="dimmed">
              {imp.status === 'queued'
                ? 'Waiting to start…'
                : imp.status === 'parsing'
                  ? 'Reading the file…'
                  : 'Adding people…'}{' '}
              You can leave this page; the import carries on.
            </Text>
          )}
          {imp.status === 'failed' && (
            <Alert
              color="red"
              variant="light"
              icon={<IconAlertCircle size={18} />}
              role="alert"
              title={importMessages.couldNotProcess}
            >
              {imp.error ?? importMessages.importError}
            </Alert>
          )}
          <SimpleGrid cols={{ base: 2, xs: 3, md: 5 }} spacing="sm">
            {countLabels.map((c) => (
              <Card key={c.key} withBorder radius="md" p="sm" role="group" aria-label={c.label}>
                <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
                  {c.label}
                </Text>
                <Text fz={24} fw={700} c={c.color && imp.counts[c.key] > 0 ? c.color : undefined}>
                  {imp.counts[c.key].toLocaleString()}
                </Text>
              </Card>
            ))}
          </SimpleGrid>
          {imp.tags.length > 0 && (
            <Text size="sm" c="dimmed">
              Tagged: {imp.tags.join(', ')}
            </Text>
          )}
          {imp.counts.failed > 0 && (
            <Group>
              <Button
                component="a"
                href={failuresUrl(imp.id)}
                download
                variant="light"
                color="red"
                leftSection={<IconDownload size={16} />}
              >
                Download failed rows
              </Button>
            </Group>
          )}
        </Stack>
      </Card>
    </Stack>
  );
}
