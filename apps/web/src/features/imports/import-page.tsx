import { importMessages, type Import } from '@herald/contracts';
import { Alert, Anchor, Button, Card, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconAlertCircle, IconArrowLeft, IconDownload, IconFileImport, IconPlus } from '@tabler/icons-react';
import { Link, useParams } from 'react-router';
import { formatDateTime } from '../../lib/format.ts';
import { seeGate } from '../../ui/list-page.tsx';
import { DetailPage, isBadId } from '../../ui/detail-page.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { useAccess } from '../account/use-access.ts';
import { countLabels, ImportProgress, ImportStatusBadge } from './import-status.tsx';
import { failuresUrl, importListMessages, isRunning, useImport } from './imports.api.ts';

/** /people/imports/{id}: one import's progress, counts and failed rows. */
export function ImportPage() {
  const params = useParams();
  const id = Number(params.id);
  const { isReady, canRead, canWrite } = useAccess(['people:read'], ['people:write']);
  const query = useImport(id, { enabled: canRead });

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

  const view = (imp: Import) => {
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
  };

  return (
    <DetailPage
      query={query}
      loadingLabel="Loading import"
      isReady={isReady}
      gate={seeGate(canRead, 'imports', 'See people')}
      isMissing={isBadId(id)}
      notFound={{
        icon: <IconFileImport size={28} />,
        title: importMessages.importNotFound,
        description: 'It may belong to another account. The list of imports shows the ones in this account.',
        back: { to: '/people/imports', label: 'All imports', variant: 'default' },
      }}
      errorFallback={importListMessages.loadOne}
      top={back}
    >
      {view}
    </DetailPage>
  );
}
