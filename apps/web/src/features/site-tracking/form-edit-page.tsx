import { siteTrackingMessages } from '@herald/contracts';
import { Alert, Anchor, Button, Card, Group, Select, Skeleton, Stack, Table, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconInfoCircle } from '@tabler/icons-react';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { DetailPage } from '../../ui/detail-page.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { useAccount, useUpdateAccount } from '../account/account.api.ts';
import { usePersonFields } from '../people/people.api.ts';
import { useTrackedForms } from './site-tracking.api.ts';

const unmapped = '';

/** /settings/site-tracking/forms/edit?hash=…: which person field each of a form's fields fills. */
export function FormEditPage() {
  const [params] = useSearchParams();
  const hash = params.get('hash') ?? '';
  const navigate = useNavigate();
  const forms = useTrackedForms();
  const account = useAccount();
  const fields = usePersonFields();
  const update = useUpdateAccount();
  const found = forms.data?.events.find((f) => f.hash === hash);
  const mappings = account.data?.formFieldMappings;
  const stored = found && mappings ? mappings[found.key] : undefined;
  const [mapping, setMapping] = useState<Record<string, string>>({});
  useEffect(() => setMapping(stored ?? {}), [stored]);

  const options = useMemo(
    () => [
      { value: unmapped, label: "Don't save" },
      ...(fields.data?.items ?? [])
        .filter((f) => f.canMapFrom && !f.readOnly)
        .map((f) => ({ value: f.name, label: f.title || f.name })),
    ],
    [fields.data],
  );

  const back = (
    <Anchor component={Link} to="/settings/site-tracking/forms" size="sm" c="dimmed">
      ← Tracked forms
    </Anchor>
  );
  const failed = forms.error ?? account.error ?? fields.error;
  const header = (
    <PageHeader title="Edit Form" description="Map a form on your site to person fields." back={back} />
  );
  const view = (form: NonNullable<typeof found>) => {
    if (!mappings) return null; // the loader waits for them
    const label = form.data.form.id ?? form.data.form.name ?? `Form ${form.hash.slice(0, 6)}`;
    const chosen = Object.fromEntries(Object.entries(mapping).filter(([, target]) => target !== unmapped));
    const save = (event: FormEvent) => {
      event.preventDefault();
      update.mutate(
        { formFieldMappings: { ...mappings, [form.key]: chosen } },
        {
          onSuccess: () => notifySuccess(siteTrackingMessages.formSaved),
          onError: (error) => notifyError(error, siteTrackingMessages.formSaveError),
        },
      );
    };
    const remove = () =>
      modals.openConfirmModal({
        title: `Remove the mapping of ${label}?`,
        children: (
          <Text size="sm">
            Submissions of this form are still recorded and still identify people by their email; they no
            longer fill other person fields.
          </Text>
        ),
        labels: { confirm: 'Remove', cancel: 'Cancel' },
        confirmProps: { color: 'red' },
        onConfirm: () => {
          const rest = Object.fromEntries(Object.entries(mappings).filter(([key]) => key !== form.key));
          update.mutate(
            { formFieldMappings: rest },
            {
              onSuccess: () => (
                notifySuccess(siteTrackingMessages.formRemoved),
                void navigate('/settings/site-tracking/forms')
              ),
              onError: (error) => notifyError(error, siteTrackingMessages.formRemoveError),
            },
          );
        },
      });

    return (
      <Stack gap="lg" py="md" maw={860}>
        <PageHeader title={`Edit Form: ${label}`} description={form.url} back={back} />
        <Alert variant="light" color="blue" icon={<IconInfoCircle size={18} />}>
          A submission is matched to a person by its email field (the one you map to Email, else the form's
          email input). Mapped fields then fill that person; fields you don't map are kept on the submission
          event only.
        </Alert>
        <form onSubmit={save} aria-label={`Field mapping of ${label}`}>
          <Stack gap="md">
            <TableCard minWidth={480} aria-label="Form fields">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Form field</Table.Th>
                  <Table.Th>Person field</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {form.data.form.fields.map((name) => (
                  <Table.Tr key={name}>
                    <Table.Td>
                      <Text fw={600} size="sm" ff="monospace">
                        {name}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Select
                        aria-label={`Person field for ${name}`}
                        data={options}
                        value={mapping[name] ?? unmapped}
                        onChange={(value) =>
                          setMapping((current) => ({ ...current, [name]: value ?? unmapped }))
                        }
                        allowDeselect={false}
                        searchable
                        maw={320}
                      />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </TableCard>
            <Card withBorder radius="md" padding="md">
              <Group justify="space-between" wrap="wrap">
                <Button variant="subtle" color="red" onClick={remove} disabled={!stored || update.isPending}>
                  Remove mapping
                </Button>
                <Button type="submit" loading={update.isPending}>
                  Save form
                </Button>
              </Group>
            </Card>
          </Stack>
        </form>
      </Stack>
    );
  };

  return (
    <DetailPage
      query={{
        isPending: !forms.data || !mappings || !fields.data,
        isError: failed !== null,
        error: failed,
        refetch: () => Promise.all([forms.refetch(), account.refetch(), fields.refetch()]),
        data: forms.data && mappings && fields.data ? (found ?? null) : undefined,
      }}
      loadingLabel="Loading form"
      skeleton={
        <Stack gap="lg" py="md" maw={860}>
          {header}
          <Skeleton h={220} radius="md" role="status" aria-label="Loading form" />
        </Stack>
      }
      notFound={{
        title: 'Form not found',
        description: 'This form has not been seen on your site. Pick one from the tracked forms.',
        back: { to: '/settings/site-tracking/forms', label: 'Tracked forms' },
      }}
      errorFallback="Error while loading your form."
      top={header}
      maw={860}
    >
      {view}
    </DetailPage>
  );
}
