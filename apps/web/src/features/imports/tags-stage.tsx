import { normaliseTag } from '@herald/contracts';
import { Checkbox, Radio, Stack, TagsInput, TextInput } from '@mantine/core';
import { useMemo } from 'react';
import { useTags } from '../tags/tags.api.ts';
import { useImportWizard } from './import-wizard.tsx';

/** Stage 3: tags for everyone, the import's name, and what happens to people who already exist. */
export function TagsStage() {
  const { state, update } = useImportWizard();
  const tags = useTags();
  const suggestions = useMemo(() => (tags.data?.tags ?? []).map((t) => t.tag), [tags.data]);
  return (
    <Stack gap="lg" maw={560}>
      <TagsInput
        size="md"
        label="Tags"
        description="Added to everyone in this import. Press Enter or type a comma after each tag."
        placeholder={state.tags.length ? undefined : 'Add a tag'}
        data={suggestions}
        value={state.tags}
        onChange={(values) => update({ tags: [...new Set(values.map(normaliseTag).filter(Boolean))] })}
        maxTags={100}
        clearable
        acceptValueOnBlur
      />
      <TextInput
        label="Import name"
        description="Shown in the list of imports."
        value={state.name}
        onChange={(e) => update({ name: e.currentTarget.value })}
        maxLength={200}
      />
      <Radio.Group
        label="People who are already in Herald"
        description="Matched by email."
        value={state.strategy}
        onChange={(value) => update({ strategy: value === 'ignore' ? 'ignore' : 'update' })}
      >
        <Stack gap="sm" mt="xs">
          <Radio
            value="update"
            label="Update existing people"
            description="Fill their fields with the values in the file and add the tags."
          />
          <Radio
            value="ignore"
            label="Skip existing people"
            description="Leave them as they are; only new people are added."
          />
        </Stack>
      </Radio.Group>
      <Checkbox
        label="These people already confirmed their subscription"
        description="With double opt-in on, anyone in the file still waiting to confirm stops waiting. The consent history of each person records this import."
        checked={state.alreadyConfirmed}
        onChange={(e) => update({ alreadyConfirmed: e.currentTarget.checked })}
      />
    </Stack>
  );
}
