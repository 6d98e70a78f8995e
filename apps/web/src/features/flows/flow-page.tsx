import { flowMessages, hasScopes, type CatalogueEntry, type InputFields } from '@herald/contracts';
import { Alert, Box, Button, Group, List, Modal, Paper, Stack, Switch, Text } from '@mantine/core';
import { IconAlertTriangle, IconLock, IconPlus } from '@tabler/icons-react';
import { ReactFlowProvider, useReactFlow } from '@xyflow/react';
import { useEffect, useMemo, useState } from 'react';
import { useBlocker, useParams, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { notifyError } from '../../lib/notify.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { seeGate } from '../../ui/list-page.tsx';
import { DetailPage, isBadId } from '../../ui/detail-page.tsx';
import { useAccount } from '../account/account.api.ts';
import { useEmails } from '../emails/emails.api.ts';
import { usePersonFields } from '../people/people.api.ts';
import { useSegments } from '../segments/segments.api.ts';
import { CanvasContext, type CanvasContextValue } from './canvas/canvas-context.ts';
import { FlowCanvas } from './canvas/flow-canvas.tsx';
import { stepNodeWidth } from './canvas/step-node.tsx';
import { StepDrawer } from './drawer/step-drawer.tsx';
import { defaultSettings } from './drawer/step-form.tsx';
import { FlowHeader } from './flow-header.tsx';
import { FlowMenu, ReentrySetting } from './flow-settings.tsx';
import { useFlow, useFlowPeopleCounts, useServices, useToggleFlow, useUpdateFlow } from './flows.api.ts';
import { StepCatalogue } from './step-catalogue.tsx';
import { stepLabel, type StepNames } from './step-display.tsx';
import { StepPeopleModal } from './step-people-modal.tsx';
import { useFlowEditor, type EditorStep } from './use-flow-editor.ts';
import { useSharedStepNames } from './share/shared-step-names.ts';

/** /flows/{id}: one flow on a canvas (only that flow is fetched). */
export function FlowPage() {
  const { id } = useParams();
  const flowId = Number(id);
  return (
    <ReactFlowProvider>
      <FlowEditorPage key={flowId} flowId={flowId} />
    </ReactFlowProvider>
  );
}

function useStepNames(enabled: boolean): StepNames {
  const segments = useSegments({ enabled });
  const emails = useEmails('false', { enabled });
  const fields = usePersonFields({ enabled });
  return useMemo(() => {
    const segmentNames = new Map((segments.data?.segments ?? []).map((s) => [s.id, s.name]));
    const emailNames = new Map((emails.data?.emails ?? []).map((e) => [e.id, e.name]));
    const fieldNames = new Map((fields.data?.items ?? []).map((f) => [f.name, f.title || f.name]));
    return {
      segment: (sid) => segmentNames.get(sid) ?? `Segment ${sid}`,
      email: (eid) => emailNames.get(eid) ?? `Email ${eid}`,
      field: (name) => fieldNames.get(name) ?? name,
    };
  }, [segments.data, emails.data, fields.data]);
}

/** Asks before leaving while saves are pending: React Router's blocker inside the app, beforeunload for the tab. */
function LeaveGuard({ pending }: { pending: number }) {
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => pending > 0 && currentLocation.pathname !== nextLocation.pathname,
  );
  useEffect(() => {
    if (pending === 0) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [pending]);
  useEffect(() => {
    if (blocker.state === 'blocked' && pending === 0) blocker.proceed();
  }, [blocker, pending]);
  return (
    <Modal opened={blocker.state === 'blocked'} onClose={() => blocker.reset?.()} title="Leave while saving?">
      <Stack gap="md">
        <Text size="sm">
          Some changes to this flow are still being saved. If you leave now, they may be lost.
        </Text>
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={() => blocker.reset?.()}>
            Stay
          </Button>
          <Button color="red" onClick={() => blocker.proceed?.()}>
            Leave anyway
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function FlowEditorPage({ flowId }: { flowId: number }) {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  // A share link's token opens the flow read-only, without people counts or step figures (docs/flows.md).
  const [searchParams] = useSearchParams();
  const shareToken = searchParams.get('flow-read-auth');
  const canRead = shareToken !== null || (accountData ? hasScopes(accountData, ['flows:read']) : false);
  const canWrite = shareToken === null && (accountData ? hasScopes(accountData, ['flows:write']) : false);
  const flow = useFlow(canRead ? flowId : 0, shareToken);
  const services = useServices({ enabled: canRead, shareToken });
  const counts = useFlowPeopleCounts(flowId, { enabled: canRead && shareToken === null });
  const editor = useFlowEditor(flowId, flow.data?.integration);
  // A shared flow's steps name its own account's emails, segments and fields, read with the token.
  const ownNames = useStepNames(shareToken === null);
  const names = useSharedStepNames(flowId, shareToken) ?? ownNames;
  const rename = useUpdateFlow();
  const toggleFlow = useToggleFlow();
  const reactFlow = useReactFlow();
  const isNarrow = useIsNarrow('tablet');

  const [selectedKey, setSelectedKey] = useState<string | null>(null);
  const [isCatalogueOpen, setIsCatalogueOpen] = useState(false);
  const [isPreviewOn, setIsPreviewOn] = useState(true);
  const [peopleOf, setPeopleOf] = useState<EditorStep | null>(null);
  const [activationProblems, setActivationProblems] = useState<string[]>([]);
  const [requestedStatus, setRequestedStatus] = useState<boolean | null>(null);

  // A refusal's list stays until the next change; the server's own warnings follow the flow after each save.
  useEffect(() => {
    if (editor.pending > 0) setActivationProblems([]);
  }, [editor.pending]);

  // A selected new step keeps its selection when the server gives it its id.
  useEffect(() => {
    if (editor.renamed) setSelectedKey((key) => (key === editor.renamed?.from ? editor.renamed.to : key));
  }, [editor.renamed]);

  const catalogue = useMemo(
    () =>
      new Map<string, CatalogueEntry>(
        (services.data?.steps ?? []).map((entry) => [entry.operationKey, entry]),
      ),
    [services.data],
  );
  const steps = editor.state?.steps ?? [];
  const links = editor.state?.links ?? [];
  const selected = steps.find((step) => step.key === selectedKey) ?? null;
  const countOf = (step: EditorStep) =>
    step.id !== null ? (counts.data?.steps[String(step.id)] ?? step.peopleCount) : 0;

  const canvasValue = useMemo<CanvasContextValue>(
    () => ({
      catalogue,
      names,
      counts: counts.data?.steps ?? {},
      isPreviewOn,
      isReadOnly: !canWrite,
      showFigures: shareToken === null,
      openPeople: (step) => setPeopleOf(step),
      deleteLink: (key) => void editor.deleteLink(key),
    }),
    [catalogue, names, counts.data, isPreviewOn, canWrite, shareToken, editor],
  );

  const view = (response: NonNullable<typeof flow.data>) => {
    const data = response.integration;
    const hasTrigger = steps.some((step) => step.type === 'trigger');
    const isOn = requestedStatus ?? data.status === 'active';
    const warnings = [
      ...new Set([...(data.status === 'active' ? [] : activationProblems), ...data.warnings]),
    ];

    /** A new step goes under the selected one, else under the lowest step, else in the middle of the view. */
    const placeForNewStep = () => {
      const anchor = selected ?? [...steps].sort((a, b) => b.coordinates.y - a.coordinates.y)[0];
      if (anchor) return { x: anchor.coordinates.x, y: anchor.coordinates.y + 170 };
      const box = document.querySelector('.react-flow')?.getBoundingClientRect();
      const centre = box
        ? reactFlow.screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 3 })
        : { x: 0, y: 0 };
      return { x: Math.round(centre.x - stepNodeWidth / 2), y: Math.round(centre.y) };
    };

    const addStep = async (entry: CatalogueEntry) => {
      setIsCatalogueOpen(false);
      const place = placeForNewStep();
      const key = await editor.addStep(
        {
          type: entry.type,
          serviceId: entry.serviceId,
          operationKey: entry.operationKey,
          mustConfig: entry.mustConfig.configStep,
          inputFields: defaultSettings(entry.operationKey),
        },
        place,
      );
      if (!key) return;
      setSelectedKey(key);
      // The new step comes into view, a little above the middle so the step it follows shows too.
      void reactFlow.setCenter(place.x + stepNodeWidth / 2, place.y, {
        zoom: reactFlow.getZoom(),
        duration: 300,
      });
    };

    const toggle = async (on: boolean) => {
      setRequestedStatus(on);
      setActivationProblems([]);
      // Switching waits for the saves still on their way (docs/flows.md).
      await editor.flush();
      const problems = await toggleFlow.toggle(flowId, on);
      if (problems) setActivationProblems(problems);
      else editor.resetConfirmation();
      setRequestedStatus(null);
    };

    return (
      <CanvasContext.Provider value={canvasValue}>
        <Stack gap="sm" py="md">
          <FlowHeader
            name={data.name}
            status={requestedStatus === null ? data.status : requestedStatus ? 'active' : 'deactivated-user'}
            isReadOnly={!canWrite}
            isShared={shareToken !== null}
            isStatusChanging={requestedStatus !== null}
            pendingSaves={editor.pending}
            onRename={(name) =>
              rename.mutate(
                { id: flowId, changes: { name } },
                { onError: (error) => notifyError(error, flowMessages.updateFallback) },
              )
            }
            onToggle={(on) => void toggle(on)}
          />
          {warnings.length > 0 && (
            <Alert
              color={isOn ? 'yellow' : 'orange'}
              variant="light"
              icon={<IconAlertTriangle size={18} />}
              title={isOn ? 'This flow needs attention' : 'Before this flow can run'}
              data-testid="flow-warnings"
            >
              <List size="sm" spacing={2}>
                {warnings.map((warning) => (
                  <List.Item key={warning}>{warning}</List.Item>
                ))}
              </List>
            </Alert>
          )}
          {!canWrite && (
            <Alert variant="light" color="gray" icon={<IconLock size={18} />}>
              {shareToken !== null
                ? flowMessages.readOnly
                : 'You can see this flow. Changing it needs the “Edit flows” permission.'}
            </Alert>
          )}
          <Group justify="space-between" gap="sm" wrap="wrap">
            {canWrite ? (
              <Button leftSection={<IconPlus size={16} />} onClick={() => setIsCatalogueOpen(true)}>
                Add step
              </Button>
            ) : (
              <span />
            )}
            <Group gap="lg" wrap="wrap">
              {shareToken === null && (
                <Text size="sm" c="dimmed" data-testid="flow-people">
                  {counts.data
                    ? `${counts.data.active.toLocaleString()} in the flow now · ${counts.data.entered.toLocaleString()} entered`
                    : counts.isError
                      ? 'People counts are unavailable.'
                      : 'Counting people…'}
                </Text>
              )}
              <Switch
                label="Steps preview"
                checked={isPreviewOn}
                onChange={(event) => setIsPreviewOn(event.currentTarget.checked)}
              />
              {shareToken === null && <ReentrySetting flow={data} isReadOnly={!canWrite} />}
              {canWrite && <FlowMenu flow={data} />}
            </Group>
          </Group>
          <Paper
            withBorder
            radius="md"
            h={isNarrow ? 'calc(100vh - 300px)' : 'calc(100vh - 250px)'}
            mih={420}
            pos="relative"
            style={{ overflow: 'hidden' }}
          >
            {steps.length === 0 && (
              <Box pos="absolute" top={0} left={0} right={0} style={{ zIndex: 5, pointerEvents: 'none' }}>
                <EmptyState
                  title="Start with a trigger"
                  description="A flow starts when something happens to a person: a tag is added, they enter a segment, an event arrives. Add a trigger, then the steps that follow."
                  action={
                    canWrite ? (
                      <Button
                        style={{ pointerEvents: 'all' }}
                        leftSection={<IconPlus size={16} />}
                        onClick={() => setIsCatalogueOpen(true)}
                      >
                        Add a trigger
                      </Button>
                    ) : undefined
                  }
                />
              </Box>
            )}
            <FlowCanvas
              steps={steps}
              links={links}
              selectedKey={selectedKey}
              isReadOnly={!canWrite}
              onSelect={setSelectedKey}
              onMove={editor.moveStep}
              onConnect={(source, target, condition) => void editor.addLink(source, target, condition)}
              onDeleteLinks={(keys) => keys.forEach((key) => void editor.deleteLink(key))}
            />
          </Paper>
        </Stack>
        <StepDrawer
          step={selected}
          catalogue={catalogue}
          names={names}
          count={selected ? countOf(selected) : 0}
          isReadOnly={!canWrite}
          showFigures={shareToken === null}
          isNarrow={isNarrow}
          onClose={() => setSelectedKey(null)}
          onSave={(step, inputFields: InputFields, onStart) =>
            editor.saveStepSettings(step.key, inputFields, onStart)
          }
          onDuplicate={(step) =>
            void editor.duplicateStep(step.key).then((key) => key && setSelectedKey(key))
          }
          onDelete={(step) =>
            void editor.deleteStep(step.key).then((isDeleted) => isDeleted && setSelectedKey(null))
          }
          onOpenPeople={setPeopleOf}
        />
        <StepCatalogue
          opened={isCatalogueOpen}
          entries={services.data?.steps}
          error={services.isError ? errorMessage(services.error, flowMessages.stepLoadError) : null}
          hasTrigger={hasTrigger}
          onClose={() => setIsCatalogueOpen(false)}
          onPick={(entry) => void addStep(entry)}
        />
        <StepPeopleModal
          step={
            peopleOf && peopleOf.id !== null
              ? {
                  id: peopleOf.id,
                  label: stepLabel(peopleOf.operationKey, catalogue),
                  count: countOf(peopleOf),
                }
              : null
          }
          onClose={() => setPeopleOf(null)}
        />
        <LeaveGuard pending={editor.pending} />
      </CanvasContext.Provider>
    );
  };

  return (
    <DetailPage
      query={flow}
      loadingLabel="Loading the flow"
      isReady={account.data !== undefined || shareToken !== null}
      gate={seeGate(canRead, 'flows', 'See flows')}
      isMissing={isBadId(flowId)}
      notFound={{
        title: 'No such flow',
        description: 'The address does not name a flow. Open one from the list of flows.',
      }}
      errorTitle={flowMessages.oneFallback}
      errorFallback={flowMessages.oneFallback}
    >
      {view}
    </DetailPage>
  );
}
