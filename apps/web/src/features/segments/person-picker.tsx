import { Select } from '@mantine/core';
import { useThrottledValue } from '@mantine/hooks';
import { useMemo, useState } from 'react';
import { effectiveQuery, searchThrottleMs, usePeopleSearch } from '../people/people.api.ts';

/** A person the picker shows: their id and how to call them. */
export interface PickedPerson {
  id: number;
  label: string;
}

/** Find one person by email or name (the people search), or type their id. */
export function PersonPicker({
  value,
  onChange,
}: {
  value: PickedPerson | null;
  onChange: (person: PickedPerson) => void;
}) {
  const [search, setSearch] = useState(value?.label ?? '');
  const throttled = useThrottledValue(search, searchThrottleMs);
  const isId = /^\d{1,15}$/.test(search.trim());
  const query = isId ? '' : effectiveQuery(throttled);
  const people = usePeopleSearch(query, { enabled: query !== '' });
  const options = useMemo(() => {
    const found = (people.data?.pages ?? []).flatMap((p) => p.users).slice(0, 20);
    // The chosen person keeps the label they were picked with. Select writes a chosen option's label back into the
    // search box whenever that label changes, so a late answer to an earlier search (naming them differently) would
    // wipe what is being typed.
    const items = found.map((p) => ({
      value: String(p.id),
      label:
        value && p.id === value.id
          ? value.label
          : [p.email ?? `Person ${p.id}`, [p.firstName, p.lastName].filter(Boolean).join(' ')]
              .filter(Boolean)
              .join(' · '),
    }));
    if (isId && !items.some((i) => i.value === search.trim()))
      items.unshift({ value: search.trim(), label: `Person #${search.trim()}` });
    if (value && !items.some((i) => i.value === String(value.id)))
      items.unshift({ value: String(value.id), label: value.label });
    return items;
  }, [people.data, isId, search, value]);
  return (
    <Select
      label="Person"
      placeholder="Email, name or person id"
      searchable
      // The server already filtered by the search text; every answer is a match.
      filter={({ options: all }) => all}
      searchValue={search}
      onSearchChange={setSearch}
      data={options}
      value={value ? String(value.id) : null}
      onChange={(id, option) => id && onChange({ id: Number(id), label: option.label })}
      nothingFoundMessage={
        query || isId ? (people.isFetching ? 'Searching…' : 'Nobody matches') : 'Type 2 characters or more'
      }
      w={{ base: '100%', sm: 340 }}
      data-autofocus
    />
  );
}
