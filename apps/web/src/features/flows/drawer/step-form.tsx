import '@mantine/dates/styles.css';
import {
  decodeInputFields,
  encodeInputFields,
  flowLimits,
  flowMessages,
  isOperationKey,
  operationConfigs,
  stepTypeOf,
  type InputFields,
  type OperationKey,
} from '@herald/contracts';
import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconDeviceFloppy } from '@tabler/icons-react';
import { useState, type ReactNode } from 'react';
import { newCondition } from '../../segments/condition-text.ts';
import { defaultVariants } from './ab-variants-input.tsx';
import { ActionSettings } from './action-settings.tsx';
import { FilterSettings, filterConditionType } from './filter-settings.tsx';
import type { Draft, SettingsProps } from './settings-draft.tsx';
import { TriggerSettings } from './trigger-settings.tsx';
import { defaultWait } from './wait-editor.tsx';

/** Settings a new step starts with, where an empty one would be no use (a wait, an A/B test, a filter's condition). */
export function defaultSettings(operationKey: string): InputFields | undefined {
  switch (operationKey) {
    case '/delay-v2':
      return encodeInputFields({ wait: defaultWait('duration') });
    case '/ab-test':
      return encodeInputFields({ variants: defaultVariants() });
    case '/dateFieldTrigger':
      return encodeInputFields({ offsetDays: 0, time: '09:00' });
    case '/annualTrigger':
      return encodeInputFields({ time: '09:00' });
    case '/page-visited-trigger':
      return encodeInputFields({ match: 'contains' });
    case '/email-trigger':
      return encodeInputFields({ activity: 'opened' });
    default:
      return undefined;
  }
}

/** The settings of one operation, as form fields over the decoded inputFields: the section of its step type. */
function SettingsFields(props: SettingsProps & { operationKey: OperationKey }) {
  switch (stepTypeOf(props.operationKey)) {
    case 'trigger':
      return <TriggerSettings {...props} />;
    case 'filter':
      return <FilterSettings {...props} />;
    case 'action':
      return <ActionSettings {...props} />;
  }
}

/** Operations that keep nothing to set up. */
const hasNoSettings = (operationKey: string) =>
  ['/archive-person', '/end-flow', '/webhook-trigger'].includes(operationKey);

interface StepFormProps {
  operationKey: string;
  /** The saved step's id; null while it is being created. */
  stepId: number | null;
  inputFields: InputFields;
  outputFields: Record<string, unknown> | null;
  isReadOnly: boolean;
  isSaving: boolean;
  onSave: (inputFields: InputFields) => void;
  /** Shown under the fields (the step's own problem, from the server). */
  problem: string | null;
  footer?: ReactNode;
}

/**
 * The configuration form of one step: fields for its operation over the decoded settings, checked against the
 * operation's schema before saving (the same schema the server checks), so a mistake is named beside the form.
 */
export function StepForm({
  operationKey,
  stepId,
  inputFields,
  outputFields,
  isReadOnly,
  isSaving,
  onSave,
  problem,
  footer,
}: StepFormProps) {
  const [draft, setDraft] = useState<Draft>(() => {
    const decoded = decodeInputFields(inputFields);
    if (operationKey === '/ab-test' && !Array.isArray(decoded.variants)) decoded.variants = defaultVariants();
    if (operationKey === '/delay-v2' && !decoded.wait) decoded.wait = defaultWait('duration');
    const conditionType = filterConditionType[operationKey];
    if (conditionType && !decoded.condition) decoded.condition = newCondition(conditionType, undefined);
    return decoded;
  });
  const [error, setError] = useState<string | null>(null);
  const set = (key: string, value: unknown) => {
    setError(null);
    setDraft((current) => ({ ...current, [key]: value }));
  };

  if (!isOperationKey(operationKey)) {
    return (
      <Alert
        color="red"
        variant="light"
        icon={<IconAlertTriangle size={18} />}
        title={flowMessages.unknownStep}
      >
        Herald does not know the operation {operationKey}. Delete this step and add one from the catalogue.
      </Alert>
    );
  }

  const save = () => {
    const parsed = operationConfigs[operationKey].safeParse(draft);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join(' › ')}: ` : '';
      setError(`${where}${issue?.message ?? 'Check the settings.'}`);
      return;
    }
    onSave(encodeInputFields(parsed.data as Record<string, unknown>));
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <Stack gap="md">
        <SettingsFields
          operationKey={operationKey}
          stepId={stepId}
          draft={draft}
          set={set}
          isReadOnly={isReadOnly}
          outputFields={outputFields}
        />
        {problem && (
          <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />}>
            {problem}
          </Alert>
        )}
        {error && (
          <Alert color="red" variant="light" role="alert" icon={<IconAlertTriangle size={18} />}>
            {error}
          </Alert>
        )}
        <Group justify="space-between" gap="xs">
          {!isReadOnly && !hasNoSettings(operationKey) ? (
            <Button type="submit" leftSection={<IconDeviceFloppy size={16} />} loading={isSaving}>
              Save step
            </Button>
          ) : (
            <span />
          )}
          {footer}
        </Group>
        {operationKey === '/ab-test' && (
          <Text size="xs" c="dimmed">
            At most {flowLimits.maxAbVariants} variants; each variant is a branch to link from.
          </Text>
        )}
      </Stack>
    </form>
  );
}
