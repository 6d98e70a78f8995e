import type { MergeTag } from '@herald/contracts';
import { Button, Divider, Popover, ScrollArea, Stack, Text, TextInput, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconBraces, IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { usePersonFields } from '../people/people.api.ts';
import { mergeTagText, mergeTagsFor } from './merge-tags.ts';

const groupTitles: Record<MergeTag['group'], string> = {
  person: 'Person fields',
  account: 'Account',
  links: 'Links',
};

/** Lists the account's person fields, the account tags and the links; inserts the Liquid for one, with an optional fallback. */
export function MergeTagPicker({
  onInsert,
  disabled,
}: {
  onInsert: (liquid: string) => void;
  disabled?: boolean;
}) {
  const [opened, { toggle, close }] = useDisclosure(false);
  const [search, setSearch] = useState('');
  const [fallback, setFallback] = useState('');
  const fields = usePersonFields({ enabled: opened });
  const tags = mergeTagsFor(fields.data?.items ?? [], search);

  const insert = (tag: MergeTag) => {
    onInsert(mergeTagText(tag, fallback));
    close();
    setSearch('');
  };

  return (
    <Popover
      opened={opened}
      onChange={(value) => !value && close()}
      position="bottom-end"
      width={320}
      shadow="md"
      trapFocus
      withinPortal
    >
      <Popover.Target>
        <Button
          variant="default"
          size="sm"
          leftSection={<IconBraces size={16} />}
          onClick={toggle}
          disabled={disabled}
        >
          Merge tag
        </Button>
      </Popover.Target>
      <Popover.Dropdown p="sm">
        <Stack gap="xs">
          <TextInput
            size="xs"
            aria-label="Search merge tags"
            placeholder="Search fields"
            leftSection={<IconSearch size={14} />}
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
            data-autofocus
          />
          <TextInput
            size="xs"
            label="Fallback when empty"
            placeholder="there"
            value={fallback}
            onChange={(e) => setFallback(e.currentTarget.value)}
          />
          <Divider />
          <ScrollArea.Autosize mah={280}>
            <Stack gap={2}>
              {(['person', 'account', 'links'] as const).map((group) => {
                const inGroup = tags.filter((tag) => tag.group === group);
                if (inGroup.length === 0) return null;
                return (
                  <Stack key={group} gap={2}>
                    <Text size="xs" fw={700} c="dimmed" tt="uppercase" mt={4}>
                      {groupTitles[group]}
                    </Text>
                    {inGroup.map((tag) => (
                      <UnstyledButton
                        key={tag.liquid}
                        onClick={() => insert(tag)}
                        px="xs"
                        py={4}
                        style={{ borderRadius: 4 }}
                        className="merge-tag-option"
                      >
                        <Text size="sm">{tag.label}</Text>
                        <Text size="xs" c="dimmed" ff="monospace">
                          {tag.liquid}
                        </Text>
                      </UnstyledButton>
                    ))}
                  </Stack>
                );
              })}
              {fields.isPending && (
                <Text size="xs" c="dimmed">
                  Loading fields…
                </Text>
              )}
            </Stack>
          </ScrollArea.Autosize>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
