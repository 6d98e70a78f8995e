import type { Condition } from '@herald/contracts';
import { Stack, Text } from '@mantine/core';
import { ConditionInput } from '../../segments/condition-input.tsx';
import { newCondition } from '../../segments/condition-text.ts';
import { useSegments } from '../../segments/segments.api.ts';
import { useConditionChoices } from '../../segments/use-condition-choices.ts';
import { SegmentField, TagField, type Draft, type SettingsProps } from './settings-draft.tsx';

/** A filter's condition, created on first edit with the segments editor's defaults. */
export const filterConditionType: Record<string, Condition['type']> = {
  '/check-email-activity': 'emailActivity',
  '/check-field': 'field',
  '/visited-page': 'pageVisited',
};

function FilterConditionInput({
  operationKey,
  draft,
  set,
}: {
  operationKey: string;
  draft: Draft;
  set: (key: string, value: unknown) => void;
}) {
  const segments = useSegments();
  const choices = useConditionChoices(true, segments.data?.segments, undefined);
  const type = filterConditionType[operationKey]!;
  const condition = (draft.condition as Condition | undefined) ?? newCondition(type, undefined);
  return (
    <Stack gap={6}>
      <Text size="sm" fw={500}>
        People who match go down the “yes” branch; the others down “no”.
      </Text>
      <ConditionInput condition={condition} choices={choices} onChange={(next) => set('condition', next)} />
    </Stack>
  );
}

/** The settings of a filter step: a segment, a tag, or a condition of the segments editor. */
export function FilterSettings({ operationKey, draft, set, isReadOnly }: SettingsProps) {
  const fieldProps = { draft, set, isReadOnly };
  switch (operationKey) {
    case '/in-segment':
      return (
        <SegmentField
          label="Is the person in"
          description="In the segment: “yes” branch; otherwise “no”."
          {...fieldProps}
        />
      );
    case '/has-tag':
      return <TagField label="Has the tag" {...fieldProps} />;
    case '/check-email-activity':
    case '/check-field':
    case '/visited-page':
      return isReadOnly ? (
        <Text size="sm">Only people who can edit flows can change this filter.</Text>
      ) : (
        <FilterConditionInput operationKey={operationKey} draft={draft} set={set} />
      );
    default:
      return null;
  }
}
