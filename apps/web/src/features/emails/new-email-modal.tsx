import { emailMessages, type EmailEditorType, type EmailTemplate } from '@herald/contracts';
import {
  Badge,
  Button,
  Card,
  Group,
  Modal,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  TextInput,
  UnstyledButton,
} from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { notifyError } from '../../lib/notify.ts';
import { ListBody } from '../../ui/list-page.tsx';
import { useAccount } from '../account/account.api.ts';
import { blankHtml, blankRichText, editorChoices, editorLabel } from './editor-types.ts';
import { validate } from './email-draft.ts';
import { useCreateEmail, useEmailTemplates } from './emails.api.ts';

interface NewEmailModalProps {
  opened: boolean;
  onClose: () => void;
  folderId?: number;
}

type Start = { kind: 'blank'; editor: EmailEditorType } | { kind: 'template'; template: EmailTemplate };

function ChoiceCard(props: {
  selected: boolean;
  title: string;
  description: string;
  badge?: string;
  onSelect: () => void;
}) {
  return (
    <UnstyledButton onClick={props.onSelect} aria-pressed={props.selected} style={{ height: '100%' }}>
      <Card
        withBorder
        radius="md"
        padding="sm"
        h="100%"
        style={{
          borderColor: props.selected ? 'var(--mantine-color-indigo-6)' : undefined,
          borderWidth: props.selected ? 2 : 1,
        }}
      >
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Text fw={600} size="sm">
            {props.title}
          </Text>
          {props.selected ? (
            <IconCheck size={16} color="var(--mantine-color-indigo-7)" aria-hidden />
          ) : (
            props.badge && (
              <Badge size="xs" variant="light" color="gray">
                {props.badge}
              </Badge>
            )
          )}
        </Group>
        <Text size="xs" c="dimmed" mt={4}>
          {props.description}
        </Text>
      </Card>
    </UnstyledButton>
  );
}

/** New email: name, subject and sender (from the account's default sender), then a blank editor or a starter template. */
export function NewEmailModal({ opened, onClose, folderId }: NewEmailModalProps) {
  const account = useAccount();
  const templates = useEmailTemplates({ enabled: opened });
  const create = useCreateEmail();
  const navigate = useNavigate();
  const [start, setStart] = useState<Start>({ kind: 'blank', editor: 'richtext' });
  const initial = {
    name: '',
    subject: '',
    fromName: account.data?.defaultFromName ?? account.data?.name ?? '',
    fromEmail: account.data?.defaultFromEmail ?? account.data?.email ?? '',
  };
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<{ subject?: string; fromEmail?: string }>({});
  const field = (name: keyof typeof initial) => ({
    value: values[name],
    error: name === 'subject' || name === 'fromEmail' ? errors[name] : undefined,
    onChange: (event: ChangeEvent<HTMLInputElement>) => {
      const value = event.currentTarget.value;
      setValues((current) => ({ ...current, [name]: value }));
      setErrors((current) => ({ ...current, [name]: undefined }));
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = validate(values);
    setErrors(found);
    if (found.subject || found.fromEmail) return;
    const template = start.kind === 'template' ? start.template : null;
    const type = template ? template.editorType : start.kind === 'blank' ? start.editor : 'html';
    const html = template
      ? template.html
      : type === 'html'
        ? blankHtml
        : type === 'richtext'
          ? blankRichText
          : '';
    create.mutate(
      {
        name: values.name.trim() || template?.name || undefined,
        subject: values.subject,
        fromName: values.fromName,
        fromEmail: values.fromEmail,
        preheader: template?.preheader ?? '',
        html,
        editor: { type, state: template?.state ?? null, html },
        ...(folderId ? { folderId } : {}),
      },
      {
        onSuccess: ({ email }) => {
          onClose();
          setValues(initial);
          void navigate(`/emails/${email.id}`);
        },
        onError: (error) => notifyError(error, emailMessages.createError),
      },
    );
  };

  const chooseTemplate = (template: EmailTemplate) => {
    setStart({ kind: 'template', template });
    if (!values.subject.trim()) setValues((current) => ({ ...current, subject: template.subject }));
  };

  return (
    <Modal opened={opened} onClose={onClose} title="New email" size="xl">
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput
              label="Name"
              description="Only your team sees it."
              placeholder="Welcome email"
              {...field('name')}
            />
            <TextInput
              label="Subject"
              withAsterisk
              placeholder="Welcome, {{ person.firstName }}"
              {...field('subject')}
            />
            <TextInput label="From name" placeholder="Ada at Analytical" {...field('fromName')} />
            <TextInput
              label="From email"
              withAsterisk
              type="email"
              placeholder="ada@example.com"
              {...field('fromEmail')}
            />
          </SimpleGrid>
          <Stack gap={6}>
            <Text fw={600} size="sm">
              Start blank
            </Text>
            <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
              {editorChoices.map((choice) => (
                <ChoiceCard
                  key={choice.type}
                  title={choice.label}
                  description={choice.description}
                  selected={start.kind === 'blank' && start.editor === choice.type}
                  onSelect={() => setStart({ kind: 'blank', editor: choice.type })}
                />
              ))}
            </SimpleGrid>
          </Stack>
          <Stack gap={6}>
            <Text fw={600} size="sm">
              Or start from a template
            </Text>
            <ListBody
              query={templates}
              loadingLabel="Loading templates"
              skeleton={
                <SimpleGrid
                  cols={{ base: 1, sm: 3 }}
                  spacing="sm"
                  role="status"
                  aria-label="Loading templates"
                >
                  {[0, 1, 2].map((key) => (
                    <Skeleton key={key} h={84} radius="md" />
                  ))}
                </SimpleGrid>
              }
              errorTitle={emailMessages.templatesError}
              errorFallback={emailMessages.templatesError}
            >
              <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
                {(templates.data?.templates ?? []).map((template) => (
                  <ChoiceCard
                    key={template.id}
                    title={template.name}
                    description={template.description}
                    badge={editorLabel(template.editorType)}
                    selected={start.kind === 'template' && start.template.id === template.id}
                    onSelect={() => chooseTemplate(template)}
                  />
                ))}
              </SimpleGrid>
            </ListBody>
          </Stack>
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create email
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
