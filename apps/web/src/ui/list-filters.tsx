import { Group, SegmentedControl, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';

interface ListFiltersProps {
  /** The search box's accessible name, e.g. "Search emails". */
  searchLabel: string;
  placeholder: string;
  search: string;
  onSearch: (value: string) => void;
  /** The Active / Archived switch, named e.g. "Which emails"; left out when not given. */
  archived?: { label: string; value: boolean; onChange: (archived: boolean) => void };
}

/** A list's toolbar: its search and, for lists that archive, Active / Archived. Values live in the address (useListState). */
export function ListFilters({ searchLabel, placeholder, search, onSearch, archived }: ListFiltersProps) {
  return (
    <Group gap="sm" wrap="wrap">
      <TextInput
        aria-label={searchLabel}
        placeholder={placeholder}
        leftSection={<IconSearch size={16} />}
        value={search}
        onChange={(event) => onSearch(event.currentTarget.value)}
        style={{ flex: 1, minWidth: 200 }}
      />
      {archived && (
        <SegmentedControl
          aria-label={archived.label}
          value={archived.value ? 'true' : 'false'}
          onChange={(value) => archived.onChange(value === 'true')}
          data={[
            { value: 'false', label: 'Active' },
            { value: 'true', label: 'Archived' },
          ]}
        />
      )}
    </Group>
  );
}
