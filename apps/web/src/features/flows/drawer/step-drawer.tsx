import { sendStepEmailId, type CatalogueEntry, type InputFields } from '@herald/contracts';
import { Anchor, Button, Divider, Drawer, Group, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconCopy, IconTrash, IconUsers } from '@tabler/icons-react';
import { useState } from 'react';
import { SendFigures } from '../canvas/step-node.tsx';
import {
  StepIcon,
  stepLabel,
  stepTypeColors,
  stepTypeLabels,
  summariseStep,
  type StepNames,
} from '../step-display.tsx';
import type { EditorStep } from '../use-flow-editor.ts';
import { StepForm } from './step-form.tsx';
import { SharedStepSettings } from '../share/shared-step-settings.tsx';

const drawerSizes = { sm: 380, md: 440, lg: 540, xl: 680 } as const;

interface StepDrawerProps {
  step: EditorStep | null;
  catalogue: Map<string, CatalogueEntry>;
  names: StepNames;
  count: number;
  isReadOnly: boolean;
  /** Send step figures; off in the read-only shared view. */
  showFigures: boolean;
  isNarrow: boolean;
  onClose: () => void;
  /** Saves the step's settings; calls `onStart` once the save goes ahead (an active flow asks first). */
  onSave: (step: EditorStep, inputFields: InputFields, onStart: () => void) => Promise<boolean>;
  onDuplicate: (step: EditorStep) => void;
  onDelete: (step: EditorStep) => void;
  onOpenPeople: (step: EditorStep) => void;
}

/**
 * The step setup drawer (docs/flows.md): a header with the step's icon, name, a subtitle summarising it and a
 * close button; the configuration form of its operation; its people and, for a send step, its email's figures;
 * duplicate and delete. Below 768 px it covers the canvas.
 */
export function StepDrawer({
  step,
  catalogue,
  names,
  count,
  isReadOnly,
  showFigures,
  isNarrow,
  onClose,
  onSave,
  onDuplicate,
  onDelete,
  onOpenPeople,
}: StepDrawerProps) {
  const [isSaving, setIsSaving] = useState(false);
  const entry = step ? catalogue.get(step.operationKey) : undefined;
  const label = step ? stepLabel(step.operationKey, catalogue) : '';
  const subtitle = step
    ? (summariseStep(step.operationKey, step.inputFields, names) ??
      entry?.description ??
      stepTypeLabels[step.type])
    : '';
  const size = isNarrow ? '100%' : drawerSizes[entry?.display.drawerSize ?? 'md'];

  const confirmDelete = (target: EditorStep) =>
    modals.openConfirmModal({
      title: `Delete “${label}”?`,
      children: (
        <Text size="sm">
          The step and its links are removed.{' '}
          {count > 0 ? `The ${count.toLocaleString()} people waiting here leave the flow.` : ''}
        </Text>
      ),
      labels: { confirm: 'Delete step', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => onDelete(target),
    });

  return (
    <Drawer.Root
      opened={step !== null}
      onClose={onClose}
      position="right"
      size={size}
      lockScroll={isNarrow}
      trapFocus={isNarrow}
      closeOnClickOutside={false}
    >
      {isNarrow && <Drawer.Overlay />}
      <Drawer.Content>
        {step && (
          <>
            <Drawer.Header
              style={{ borderBottom: '1px solid var(--mantine-color-gray-3)', alignItems: 'flex-start' }}
            >
              <Group gap="sm" wrap="nowrap" align="flex-start" style={{ minWidth: 0 }}>
                <ThemeIcon variant="light" color={stepTypeColors[step.type]} size={40} radius="md">
                  <StepIcon operationKey={step.operationKey} size={22} />
                </ThemeIcon>
                <Stack gap={2} style={{ minWidth: 0 }}>
                  <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                    {stepTypeLabels[step.type]}
                  </Text>
                  <Drawer.Title>
                    <Title
                      order={2}
                      fz="lg"
                      component="span"
                      style={{ wordBreak: 'break-word', display: 'block' }}
                    >
                      {label}
                    </Title>
                  </Drawer.Title>
                  <Text
                    size="sm"
                    c="dimmed"
                    style={{ wordBreak: 'break-word' }}
                    data-testid="step-drawer-subtitle"
                  >
                    {subtitle}
                  </Text>
                </Stack>
              </Group>
              <Drawer.CloseButton aria-label="Close step" size="lg" />
            </Drawer.Header>
            <Drawer.Body pt="md">
              <Stack gap="md">
                {entry?.description && entry.description !== subtitle && (
                  <Text size="sm" c="dimmed">
                    {entry.description}
                  </Text>
                )}
                {!showFigures ? (
                  <SharedStepSettings inputFields={step.inputFields} names={names} />
                ) : (
                  <StepForm
                    key={`${step.key}:${JSON.stringify(step.inputFields)}`}
                    operationKey={step.operationKey}
                    stepId={step.id}
                    inputFields={step.inputFields}
                    outputFields={step.outputFields}
                    problem={step.problem}
                    isReadOnly={isReadOnly || step.id === null}
                    isSaving={isSaving}
                    onSave={(inputFields) => {
                      // Not shown saving while the question of an active flow is open: nothing is being saved yet.
                      void onSave(step, inputFields, () => setIsSaving(true)).finally(() =>
                        setIsSaving(false),
                      );
                    }}
                  />
                )}
                {step.id === null && (
                  <Text size="sm" c="dimmed" role="status">
                    Creating the step…
                  </Text>
                )}
                <Divider />
                <Group justify="space-between" wrap="wrap" gap="xs">
                  <Button
                    variant="default"
                    leftSection={<IconUsers size={16} />}
                    onClick={() => onOpenPeople(step)}
                    disabled={step.id === null || !showFigures}
                  >
                    {count.toLocaleString()} {count === 1 ? 'person' : 'people'} here
                  </Button>
                  {step.operationKey === '/send' &&
                    sendStepEmailId(step.inputFields) !== null &&
                    step.id !== null &&
                    showFigures && <SendFigures stepId={step.id} />}
                </Group>
                {entry?.helpDocs && (
                  <Anchor href={entry.helpDocs} target="_blank" rel="noreferrer" size="sm">
                    How this step works
                  </Anchor>
                )}
                {!isReadOnly && (
                  <Group gap="xs">
                    <Button
                      variant="light"
                      leftSection={<IconCopy size={16} />}
                      onClick={() => onDuplicate(step)}
                      disabled={step.id === null || step.type === 'trigger'}
                      title={step.type === 'trigger' ? 'A flow has one trigger.' : undefined}
                    >
                      Duplicate
                    </Button>
                    <Button
                      variant="light"
                      color="red"
                      leftSection={<IconTrash size={16} />}
                      onClick={() => confirmDelete(step)}
                      disabled={step.id === null}
                    >
                      Delete
                    </Button>
                  </Group>
                )}
              </Stack>
            </Drawer.Body>
          </>
        )}
      </Drawer.Content>
    </Drawer.Root>
  );
}
