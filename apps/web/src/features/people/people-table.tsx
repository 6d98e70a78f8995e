import { messages, type Person, type PersonField } from '@herald/contracts';
import { ActionIcon, Checkbox, Menu, Skeleton, Table, Text } from '@mantine/core';
import { IconDots, IconHelpCircle } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { spinnerTimeoutMs } from '../../ui/loading-spinner.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { FieldValue, fieldTitle, fieldType } from './person-values.tsx';

interface PeopleTableProps {
  people: Person[];
  columns: string[];
  fields: PersonField[] | undefined;
  selected: number[];
  onSelect: (ids: number[]) => void;
  /** When given, each row's menu offers "Why in or out?". */
  onExplain?: (person: Person) => void;
}

/** People in rows with the chosen columns, selectable; a row opens the person. */
export function PeopleTable({ people, columns, fields, selected, onSelect, onExplain }: PeopleTableProps) {
  const navigate = useNavigate();
  const allSelected = people.length > 0 && people.every((p) => selected.includes(p.id));
  const someSelected = selected.length > 0 && !allSelected;
  const toggle = (id: number, on: boolean) =>
    onSelect(on ? [...selected, id] : selected.filter((x) => x !== id));
  return (
    <TableCard minWidth={Math.max(560, columns.length * 150)} verticalSpacing="xs">
      <Table.Thead>
        <Table.Tr>
          <Table.Th w={40}>
            <Checkbox
              aria-label="Select all people shown"
              checked={allSelected}
              indeterminate={someSelected}
              onChange={(e) => onSelect(e.currentTarget.checked ? people.map((p) => p.id) : [])}
            />
          </Table.Th>
          {columns.map((name) => (
            <Table.Th key={name}>{fieldTitle(name, fields)}</Table.Th>
          ))}
          {onExplain && <Table.Th w={40} aria-label="Actions" />}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {people.map((person) => {
          const isSelected = selected.includes(person.id);
          return (
            <Table.Tr
              key={person.id}
              onClick={() => void navigate(`/people/${person.id}`)}
              style={{ cursor: 'pointer' }}
              bg={isSelected ? 'var(--mantine-color-indigo-light)' : undefined}
            >
              <Table.Td onClick={(e) => e.stopPropagation()}>
                <Checkbox
                  aria-label={`Select ${person.email ?? person.id}`}
                  checked={isSelected}
                  onChange={(e) => toggle(person.id, e.currentTarget.checked)}
                />
              </Table.Td>
              {columns.map((name) => (
                <Table.Td key={name}>
                  {name === 'email' ? (
                    <Text
                      component={Link}
                      to={`/people/${person.id}`}
                      size="sm"
                      fw={500}
                      c="indigo.8"
                      onClick={(e) => e.stopPropagation()}
                      style={{ wordBreak: 'break-all' }}
                    >
                      {person.email ?? `Person ${person.id}`}
                    </Text>
                  ) : (
                    <FieldValue person={person} name={name} type={fieldType(name, fields)} />
                  )}
                </Table.Td>
              ))}
              {onExplain && (
                <Table.Td onClick={(e) => e.stopPropagation()}>
                  <Menu position="bottom-end" withinPortal>
                    <Menu.Target>
                      <ActionIcon
                        variant="subtle"
                        color="gray"
                        aria-label={`Actions for ${person.email ?? person.id}`}
                      >
                        <IconDots size={16} />
                      </ActionIcon>
                    </Menu.Target>
                    <Menu.Dropdown>
                      <Menu.Item leftSection={<IconHelpCircle size={14} />} onClick={() => onExplain(person)}>
                        Why in or out?
                      </Menu.Item>
                    </Menu.Dropdown>
                  </Menu>
                </Table.Td>
              )}
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </TableCard>
  );
}

/** Placeholder rows in the table's shape while a segment's people load; past 30 s, the spinner's time-out message. */
export function PeopleTableSkeleton({
  columns,
  fields,
}: {
  columns: string[];
  fields: PersonField[] | undefined;
}) {
  const [hasTimedOut, setHasTimedOut] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setHasTimedOut(true), spinnerTimeoutMs);
    return () => clearTimeout(timer);
  }, []);
  if (hasTimedOut)
    return (
      <Text role="alert" c="dimmed" size="sm" ta="center" py="xl">
        {messages.loadingTooLong}
      </Text>
    );
  return (
    <div role="status" aria-busy="true" aria-label="Loading people">
      <TableCard minWidth={Math.max(560, columns.length * 150)} verticalSpacing="xs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={40} />
            {columns.map((name) => (
              <Table.Th key={name}>{fieldTitle(name, fields)}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {Array.from({ length: 6 }, (_, row) => (
            <Table.Tr key={row}>
              <Table.Td>
                <Skeleton h={18} w={18} radius="sm" />
              </Table.Td>
              {columns.map((name, column) => (
                <Table.Td key={name}>
                  <Skeleton h={12} w={`${55 + ((row * 7 + column * 13) % 40)}%`} radius="xl" />
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </TableCard>
    </div>
  );
}
