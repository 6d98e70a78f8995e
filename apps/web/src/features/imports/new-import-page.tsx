import { hasScopes, importMessages } from '@herald/contracts';
import { Anchor, Button, Card, Group, Stack, Stepper, Text, Title } from '@mantine/core';
import { IconArrowLeft, IconArrowRight, IconLock, IconPlayerPlay } from '@tabler/icons-react';
import { Link, Navigate, Outlet, useLocation, useNavigate, useParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { useAccount } from '../account/account.api.ts';
import { usePersonFields } from '../people/people.api.ts';
import { ConfirmStage } from './confirm-stage.tsx';
import {
  ImportWizardProvider,
  importStages,
  isImportStage,
  useImportWizard,
  type ImportStageId,
} from './import-wizard.tsx';
import { useCreateImport } from './imports.api.ts';
import { MappingStage, useInitialMapping } from './mapping-stage.tsx';
import { mappingProblem, toColumnMapping } from './mapping.ts';
import { TagsStage } from './tags-stage.tsx';
import { UploadStage } from './upload-stage.tsx';
import { LoadError } from '../../ui/load-error.tsx';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';

export const newImportPath = '/people/imports/new';
const stagePath = (stage: ImportStageId) => `${newImportPath}/${stage}`;

/** /people/imports/new: the wizard's state lives here, above the stage routes. */
export function NewImportLayout() {
  return (
    <ImportWizardProvider>
      <Outlet />
    </ImportWizardProvider>
  );
}

/** /people/imports/new and unknown stages go to the first stage, keeping the query string. */
export function NewImportRedirect() {
  const location = useLocation();
  return <Navigate to={{ pathname: stagePath('upload'), search: location.search }} replace />;
}

/** /people/imports/new/{stageName}: upload, mapping, tags, confirm. */
export function NewImportPage() {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canWrite = accountData ? hasScopes(accountData, ['people:write']) : false;
  const { stageName } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const { state } = useImportWizard();
  const fields = usePersonFields({ enabled: canWrite });
  const create = useCreateImport();
  const isNarrow = useIsNarrow('tablet');
  useInitialMapping(fields.data?.items);

  if (!account.data) return <LoadingSpinner />;

  const header = (
    <Stack gap={4}>
      <Anchor component={Link} to="/people/imports" size="sm" c="dimmed">
        <Group gap={4} component="span">
          <IconArrowLeft size={14} /> Imports
        </Group>
      </Anchor>
      <Title order={1} fz={28}>
        New import
      </Title>
      <Text c="dimmed" size="sm">
        Bring people in from a CSV file.
      </Text>
    </Stack>
  );

  if (!canWrite)
    return (
      <Stack gap="lg" py="md">
        {header}
        <EmptyState
          icon={<IconLock size={28} />}
          title="You can't import people"
          description="Importing needs the “Change people” permission. Ask an owner of the account to give it to you."
        />
      </Stack>
    );

  if (!isImportStage(stageName)) return <NewImportRedirect />;

  const existingNames = (fields.data?.items ?? []).map((f) => f.name);
  const hasFile = !!state.preview && !state.fileError;
  const isMappingValid = !!state.choices && mappingProblem(state.choices, existingNames) === null;
  const go = (stage: ImportStageId) => void navigate({ pathname: stagePath(stage), search: location.search });

  // A stage opened without what it needs (a new tab, a reload) goes back to the first one missing.
  if (stageName !== 'upload' && !hasFile)
    return <Navigate to={{ pathname: stagePath('upload'), search: location.search }} replace />;
  if ((stageName === 'tags' || stageName === 'confirm') && state.choices && !isMappingValid && fields.data)
    return <Navigate to={{ pathname: stagePath('mapping'), search: location.search }} replace />;

  const active = importStages.findIndex((s) => s.id === stageName);
  const canOpen = (index: number) =>
    index === 0 || (index === 1 && hasFile) || (index >= 2 && hasFile && isMappingValid);

  const isFileReady =
    hasFile && state.rowCount !== null && state.rowCount > 0 && state.upload.status !== 'failed';
  const canStart = isFileReady && isMappingValid && state.upload.status === 'done' && !create.isPending;

  const start = () => {
    if (!state.choices || !state.preview || !state.upload.key || state.rowCount === null) return;
    create.mutate(
      {
        ...(state.name.trim() ? { name: state.name.trim() } : {}),
        peopleFileKey: state.upload.key,
        numPeople: state.rowCount,
        fieldMapping: toColumnMapping(state.preview.header, state.choices),
        tags: state.tags,
        existingPeopleStrategy: state.strategy,
        ...(state.alreadyConfirmed ? { alreadyConfirmed: true } : {}),
      },
      {
        onSuccess: ({ id }) => {
          notifySuccess('Import started.');
          // Leaving /people/imports/new unmounts the wizard's provider, which resets its state; resetting
          // here first would send this page back to the upload stage before the navigation lands.
          void navigate(`/people/imports/${id}`);
        },
        onError: (error) => notifyError(error, importMessages.importError),
      },
    );
  };

  let content;
  let next: { label: string; disabled: boolean; onClick: () => void };
  const needsFields = stageName === 'mapping' || stageName === 'confirm';
  if (needsFields && fields.isError)
    content = (
      <LoadError
        message={errorMessage(fields.error, "We couldn't load your person fields.")}
        onRetry={() => void fields.refetch()}
      />
    );
  else if (needsFields && (!fields.data || !state.choices))
    content = <LoadingSpinner label="Loading fields" />;

  switch (stageName) {
    case 'upload':
      content ??= <UploadStage />;
      next = { label: 'Next', disabled: !isFileReady, onClick: () => go('mapping') };
      break;
    case 'mapping':
      content ??= <MappingStage fields={fields.data!.items} />;
      next = { label: 'Next', disabled: !isMappingValid, onClick: () => go('tags') };
      break;
    case 'tags':
      content = <TagsStage />;
      next = { label: 'Next', disabled: false, onClick: () => go('confirm') };
      break;
    case 'confirm':
      content ??= <ConfirmStage fields={fields.data!.items} />;
      next = { label: 'Start import', disabled: !canStart, onClick: start };
      break;
  }

  const stage = importStages[active]!;
  return (
    <Stack gap="lg" py="md">
      {header}
      <Stepper
        active={active}
        onStepClick={(index) => canOpen(index) && go(importStages[index]!.id)}
        allowNextStepsSelect={false}
        size={isNarrow ? 'xs' : 'sm'}
        aria-label="Import stages"
      >
        {importStages.map((s, index) => (
          <Stepper.Step
            key={s.id}
            label={isNarrow ? undefined : s.label}
            description={isNarrow ? undefined : s.description}
            // Named by its visible label and description; on a narrow screen only the number shows, so the name holds
            // it too (axe's label-content-name-mismatch: the visible text must be part of the name).
            aria-label={isNarrow ? `Step ${index + 1}: ${s.label}` : undefined}
            allowStepSelect={index < active && canOpen(index)}
          />
        ))}
      </Stepper>
      {isNarrow && (
        <Text fw={600} size="sm">
          Step {active + 1} of {importStages.length}: {stage.label}
        </Text>
      )}
      <Card withBorder radius="md" p={isNarrow ? 'md' : 'lg'}>
        {content}
      </Card>
      <Group justify="space-between">
        {active > 0 ? (
          <Button
            variant="default"
            leftSection={<IconArrowLeft size={16} />}
            onClick={() => go(importStages[active - 1]!.id)}
          >
            Back
          </Button>
        ) : (
          <Button variant="default" component={Link} to="/people">
            Cancel
          </Button>
        )}
        <Button
          onClick={next.onClick}
          disabled={next.disabled}
          loading={stageName === 'confirm' && create.isPending}
          rightSection={stageName === 'confirm' ? <IconPlayerPlay size={16} /> : <IconArrowRight size={16} />}
        >
          {next.label}
        </Button>
      </Group>
    </Stack>
  );
}
