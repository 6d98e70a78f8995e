import { Anchor, Badge, Button, Group, Skeleton, Table, Text, VisuallyHidden } from '@mantine/core';
import { IconForms } from '@tabler/icons-react';
import { Link } from 'react-router';
import { formatRelative } from '../../lib/format.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListPage } from '../../ui/list-page.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { useAccount } from '../account/account.api.ts';
import { useTrackedForms } from './site-tracking.api.ts';

/** /settings/site-tracking/forms: every form the site script has seen, and whether it fills person fields. */
export function FormsPage() {
  const forms = useTrackedForms();
  const account = useAccount();
  const mappings = account.data?.formFieldMappings ?? {};
  const back = (
    <Anchor component={Link} to="/settings/site-tracking" size="sm" c="dimmed">
      ← Site tracking
    </Anchor>
  );
  const events = forms.data?.events ?? [];
  return (
    <ListPage
      maw={1000}
      title="Form Tracking"
      description="Forms submitted on your site. Map a form's fields to person fields to fill people from it."
      back={back}
      query={forms}
      loadingLabel="Loading forms"
      skeleton={<Skeleton h={180} radius="md" role="status" aria-label="Loading forms" />}
      errorFallback="Error while loading your forms."
      isEmpty={events.length === 0}
      empty={
        <EmptyState
          icon={<IconForms size={28} />}
          title="No forms seen yet"
          description="Forms show here after someone submits one on a page with the site tracking snippet."
          action={
            <Button component={Link} to="/settings/site-tracking" variant="light">
              Get the snippet
            </Button>
          }
        />
      }
    >
      <TableCard minWidth={640} aria-label="Tracked forms">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Form</Table.Th>
            <Table.Th>Page</Table.Th>
            <Table.Th>Submissions</Table.Th>
            <Table.Th>Mapping</Table.Th>
            <Table.Th>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {events.map((form) => {
            const label = form.data.form.id ?? form.data.form.name ?? `Form ${form.hash.slice(0, 6)}`;
            const mapped = Object.keys(mappings[form.key] ?? {}).length;
            return (
              <Table.Tr key={form.hash}>
                <Table.Td>
                  <Text fw={600} size="sm">
                    {label}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {form.data.form.fields.join(', ') || 'No fields'}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" style={{ wordBreak: 'break-all' }}>
                    {form.url}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{form.submissions.toLocaleString()}</Text>
                  <Text size="xs" c="dimmed">
                    last {formatRelative(form.lastSeenAt)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  {mapped ? (
                    <Badge color="teal" variant="light">
                      {mapped} field{mapped === 1 ? '' : 's'} mapped
                    </Badge>
                  ) : (
                    <Badge color="gray" variant="light">
                      Not mapped
                    </Badge>
                  )}
                </Table.Td>
                <Table.Td ta="right">
                  <Group justify="flex-end">
                    <Button
                      size="xs"
                      variant="light"
                      component={Link}
                      to={`/settings/site-tracking/forms/edit?hash=${form.hash}`}
                      aria-label={`Map fields of ${label}`}
                    >
                      Map fields
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </TableCard>
    </ListPage>
  );
}
