import { Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { usePeopleSearch } from '../people/people.api.ts';

/** "Preview as": sample data, or a person of the account found by name or email. */
export function PersonPicker({
  value,
  onChange,
  label = 'Preview as',
}: {
  value: number | null;
  onChange: (id: number | null) => void;
  label?: string;
}) {
  const [search, setSearch] = useState('');
  const [query] = useDebouncedValue(search, 250);
  const people = usePeopleSearch(query);
  const found = people.data?.pages.flatMap((page) => page.users) ?? [];
  const [chosen, setChosen] = useState<{ value: string; label: string } | null>(null);
  const options = [
    { value: 'sample', label: 'Sample data (Jane Doe)' },
    ...(chosen && !found.some((p) => String(p.id) === chosen.value) ? [chosen] : []),
    ...found.slice(0, 20).map((person) => ({
      value: String(person.id),
      label:
        [person.firstName, person.lastName].filter(Boolean).join(' ') ||
        person.email ||
        `Person ${person.id}`,
    })),
  ];
  return (
    <Select
      label={label}
      size="sm"
      searchable
      data={options}
      value={value ? String(value) : 'sample'}
      searchValue={search}
      onSearchChange={setSearch}
      nothingFoundMessage="No person matches"
      allowDeselect={false}
      filter={({ options: all }) => all}
      onChange={(next) => {
        const option = options.find((o) => o.value === next) ?? null;
        setChosen(option && option.value !== 'sample' ? option : null);
        onChange(next && next !== 'sample' ? Number(next) : null);
      }}
      w={260}
    />
  );
}
