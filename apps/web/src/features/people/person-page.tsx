import { normaliseTag, peopleMessages, type Person } from '@herald/contracts';
import {
  Anchor,
  Avatar,
  Badge,
  Button,
  Card,
  CloseButton,
  Grid,
  Group,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconArrowLeft, IconTrash, IconUserQuestion } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { formatDate } from '../../lib/format.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { seeGate } from '../../ui/list-page.tsx';
import { DetailPage, isBadId } from '../../ui/detail-page.tsx';
import { useAccess } from '../account/use-access.ts';
import { tagsOf, useDeletePerson, usePerson, usePersonFields, usePersonTag } from './people.api.ts';
import { PersonConsent } from '../consent/person-consent.tsx';
import { PersonActivity, PersonMetrics } from './person-activity.tsx';
import { PersonFieldsPanel } from './person-fields-panel.tsx';
import { PersonPrivacyActions } from './person-privacy.tsx';
import { PersonSuppression } from './person-suppression.tsx';
import { personName } from './person-values.tsx';

function initials(person: Person): string {
  const name = personName(person) || person.email || '?';
  return name
    .split(/[\s@.]+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part[0]!.toUpperCase())
    .join('');
}

function PersonTags({ person, canWrite }: { person: Person; canWrite: boolean }) {
  const tagChange = usePersonTag(person.id);
  const [tag, setTag] = useState('');
  const tags = tagsOf(person);
  const normalised = normaliseTag(tag);

  const add = (event: FormEvent) => {
    event.preventDefault();
    if (!normalised) return;
    if (tags.includes(normalised)) {
      setTag('');
      return;
    }
    tagChange.mutate(
      { tag: normalised, add: true },
      { onError: (error) => notifyError(error, "Couldn't add tag.") },
    );
    setTag('');
  };

  return (
    <Card withBorder radius="md" p="lg">
      <Title order={2} fz={18} mb="md">
        Tags
      </Title>
      <Stack gap="sm">
        {tags.length === 0 ? (
          <Text size="sm" c="dimmed">
            No tags yet.
          </Text>
        ) : (
          <Group gap={6} role="list" aria-label="Tags of this person">
            {tags.map((t) => (
              <Badge
                key={t}
                role="listitem"
                variant="light"
                radius="sm"
                tt="none"
                fw={500}
                size="lg"
                pr={canWrite ? 3 : undefined}
                rightSection={
                  canWrite ? (
                    <CloseButton
                      size="xs"
                      variant="transparent"
                      aria-label={`Remove tag ${t}`}
                      onClick={() =>
                        tagChange.mutate(
                          { tag: t, add: false },
                          { onError: (error) => notifyError(error, "Couldn't remove tag.") },
                        )
                      }
                    />
                  ) : undefined
                }
              >
                {t}
              </Badge>
            ))}
          </Group>
        )}
        {canWrite && (
          <form onSubmit={add} noValidate>
            <Group gap="xs" align="flex-end" wrap="nowrap">
              <TextInput
                label="Tag"
                placeholder="e.g. customer"
                value={tag}
                onChange={(e) => setTag(e.currentTarget.value.replace(/,/g, ''))}
                maxLength={200}
                style={{ flex: 1 }}
              />
              <Button type="submit" variant="light" disabled={!normalised}>
                Add tag
              </Button>
            </Group>
          </form>
        )}
      </Stack>
    </Card>
  );
}

/** /people/{id}: one person's fields, tags, email activity and timeline. */
export function PersonPage() {
  const params = useParams();
  const id = Number(params.id);
  const navigate = useNavigate();
  const { isReady, canRead, canWrite } = useAccess(['people:read'], ['people:write']);
  const { canWrite: canExport } = useAccess(['people:read'], ['people:export']);
  const person = usePerson(canRead ? id : NaN);
  const fields = usePersonFields({ enabled: canRead });
  const remove = useDeletePerson();
  const [isEditing, setIsEditing] = useState(false);

  const backLink = (
    <Anchor component={Link} to="/people" size="sm" w="fit-content">
      <Group gap={4}>
        <IconArrowLeft size={14} /> All People
      </Group>
    </Anchor>
  );

  const view = (p: Person) => {
    const name = personName(p);
    const confirmDelete = () =>
      modals.openConfirmModal({
        title: `Delete ${name || p.email || 'this person'}?`,
        children: (
          <Text size="sm">
            The person, their tags, field values and activity are deleted for good. This cannot be undone.
          </Text>
        ),
        labels: { confirm: 'Delete', cancel: 'Cancel' },
        confirmProps: { color: 'red' },
        onConfirm: () =>
          remove.mutate(p.id, {
            onSuccess: (result) => {
              notifySuccess(result?.message || peopleMessages.personDeleted);
              void navigate('/people');
            },
            onError: (error) => notifyError(error, 'Error while deleting person.'),
          }),
      });

    return (
      <Stack gap="lg" py="md">
        {backLink}
        <Group justify="space-between" align="flex-start" wrap="wrap" gap="md">
          <Group gap="md" wrap="nowrap" style={{ minWidth: 0 }}>
            <Avatar size={56} radius="xl" color="indigo">
              {initials(p)}
            </Avatar>
            <Stack gap={2} style={{ minWidth: 0 }}>
              <Title order={1} fz={26} style={{ wordBreak: 'break-word' }}>
                {name || p.email || `Person ${p.id}`}
              </Title>
              {name && p.email && (
                <Text c="dimmed" size="sm" style={{ wordBreak: 'break-all' }}>
                  {p.email}
                </Text>
              )}
              <Group gap="xs">
                <Text size="xs" c="dimmed">
                  Added {formatDate(p.createdAt)}
                </Text>
                {p.unsubscribed && (
                  <Badge color="orange" variant="light" size="sm">
                    Unsubscribed
                  </Badge>
                )}
                {p.archived && (
                  <Badge color="gray" variant="light" size="sm">
                    Archived
                  </Badge>
                )}
              </Group>
            </Stack>
          </Group>
          {(canWrite || canExport) && (
            <Group gap="xs">
              <PersonPrivacyActions person={p} canExport={canExport} canErase={canWrite} />
              {canWrite && (
                <Button variant="default" onClick={() => setIsEditing(true)} disabled={isEditing}>
                  Edit
                </Button>
              )}
              {canWrite && (
                <Button
                  variant="light"
                  color="red"
                  leftSection={<IconTrash size={16} />}
                  onClick={confirmDelete}
                  loading={remove.isPending}
                >
                  Delete
                </Button>
              )}
            </Group>
          )}
        </Group>
        <PersonSuppression person={p} />
        <Grid gutter="lg">
          <Grid.Col span={{ base: 12, md: 5 }}>
            <Stack gap="lg">
              <PersonFieldsPanel
                person={p}
                fields={fields.data?.items}
                isEditing={isEditing}
                canWrite={canWrite}
                onEditingChange={setIsEditing}
              />
              <PersonTags person={p} canWrite={canWrite} />
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 7 }}>
            <Stack gap="lg">
              <PersonMetrics id={p.id} />
              <PersonConsent personId={p.id} canWrite={canWrite} />
              <PersonActivity id={p.id} />
            </Stack>
          </Grid.Col>
        </Grid>
      </Stack>
    );
  };

  return (
    <DetailPage
      query={person}
      loadingLabel="Loading person"
      isReady={isReady}
      gate={seeGate(canRead, 'people', 'See people')}
      isMissing={isBadId(id)}
      notFound={{
        icon: <IconUserQuestion size={28} />,
        title: peopleMessages.personNotFound,
        description: 'They may have been deleted, or the link is wrong.',
        back: { to: '/people', label: 'Back to People' },
      }}
      errorFallback="Error while loading this person."
      top={backLink}
    >
      {view}
    </DetailPage>
  );
}
