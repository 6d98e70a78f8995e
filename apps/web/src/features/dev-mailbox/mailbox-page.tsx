import type { MailboxMessage } from '@herald/contracts';
import {
  Anchor,
  Badge,
  Box,
  Button,
  Container,
  Grid,
  Group,
  Paper,
  ScrollArea,
  Stack,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { IconInbox, IconMail, IconRefresh } from '@tabler/icons-react';
import { Link, useSearchParams } from 'react-router';
import { formatDateTime } from '../../lib/format.ts';
import { BrandLogo } from '../../ui/brand-logo.tsx';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListBody } from '../../ui/list-page.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { useConfig } from '../../lib/config.api.ts';
import { extractLinks } from './extract-links.ts';
import { useMailbox, useMailboxMessage } from './mailbox.api.ts';

function MessageView({ mail }: { mail: MailboxMessage }) {
  const links = extractLinks(mail.text, mail.html);
  return (
    <Stack gap="md">
      <Stack gap={4}>
        <Title order={3}>{mail.subject || '(no subject)'}</Title>
        <Text size="sm" c="dimmed">
          From {mail.from} to {mail.to} · {formatDateTime(mail.createdAt)}
        </Text>
      </Stack>
      <Paper withBorder p="md" radius="md" bg="gray.0">
        <Text size="xs" fw={600} c="dimmed" tt="uppercase" mb={6}>
          Text part
        </Text>
        <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
          {mail.text}
        </Text>
      </Paper>
      {mail.html && (
        <Box>
          <Text size="xs" fw={600} c="dimmed" tt="uppercase" mb={6}>
            HTML part
          </Text>
          {/* Scripts, forms and navigation are all blocked: the mail is shown, never run. */}
          <iframe
            title="HTML part of the message"
            sandbox=""
            srcDoc={mail.html}
            style={{
              width: '100%',
              height: 420,
              border: '1px solid var(--mantine-color-gray-3)',
              borderRadius: 8,
              background: 'white',
            }}
          />
        </Box>
      )}
      <Box>
        <Text fw={600} mb={6}>
          Links in this message
        </Text>
        {links.length === 0 ? (
          <Text size="sm" c="dimmed">
            This message has no links.
          </Text>
        ) : (
          <Stack gap={4} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
            {links.map((link) => (
              <li key={link}>
                <Anchor href={link} size="sm" style={{ wordBreak: 'break-all' }}>
                  {link}
                </Anchor>
              </li>
            ))}
          </Stack>
        )}
      </Box>
    </Stack>
  );
}

function MessageReader({ id }: { id: number }) {
  const message = useMailboxMessage(id);
  return (
    <ListBody
      query={message}
      loadingLabel="Loading message"
      skeletonHeights={[32, 20, 120, 420]}
      errorFallback="This message could not be loaded."
    >
      {() => message.data && <MessageView mail={message.data} />}
    </ListBody>
  );
}

/** /dev/mailbox: emails the server would have sent, when no SMTP server is configured. */
export function MailboxPage() {
  const config = useConfig();
  const [searchParams, setSearchParams] = useSearchParams();
  const mailbox = useMailbox(config.devMailbox);
  const selectedId = Number(searchParams.get('id')) || null;

  const header = (
    <Group justify="space-between" mb="lg">
      <Group gap="md">
        <Anchor component={Link} to="/" underline="never" aria-label="Herald">
          <BrandLogo />
        </Anchor>
        <Title order={2}>Development mailbox</Title>
      </Group>
      {config.devMailbox && (
        <Button
          variant="default"
          leftSection={<IconRefresh size={16} />}
          onClick={() => void mailbox.refetch()}
          loading={mailbox.isFetching}
        >
          Refresh
        </Button>
      )}
    </Group>
  );

  if (config.isLoading) {
    return (
      <Container size="lg" py="xl">
        {header}
        <LoadingSpinner />
      </Container>
    );
  }

  if (!config.devMailbox) {
    return (
      <Container size="lg" py="xl">
        {header}
        <EmptyState
          icon={<IconMail size={28} />}
          title="The development mailbox is off"
          description="This server sends email through its configured SMTP server, so messages arrive in the recipients' real inboxes instead of here."
        />
      </Container>
    );
  }

  const list = mailbox.data?.messages ?? [];
  return (
    <Container size="xl" py="xl">
      {header}
      <Text c="dimmed" size="sm" mb="md">
        No SMTP server is configured, so every email the server sends is kept here instead. Newest first.
      </Text>
      <ListBody
        query={mailbox}
        loadingLabel="Loading mail"
        errorFallback="The mailbox could not be loaded."
        isEmpty={list.length === 0}
        empty={
          <EmptyState
            icon={<IconInbox size={28} />}
            title="No mail yet"
            description="Emails the server sends (password resets, invitations...) will appear here."
          />
        }
      >
        <Grid gutter="lg">
          <Grid.Col span={{ base: 12, md: 4 }}>
            <Paper withBorder radius="md">
              <ScrollArea.Autosize mah={640}>
                <Stack
                  gap={0}
                  component="ul"
                  style={{ listStyle: 'none', padding: 0, margin: 0 }}
                  aria-label="Messages"
                >
                  {list.map((mail) => (
                    <li key={mail.id}>
                      <UnstyledButton
                        w="100%"
                        p="sm"
                        onClick={() => setSearchParams({ id: String(mail.id) })}
                        aria-current={mail.id === selectedId ? 'true' : undefined}
                        style={{
                          borderBottom: '1px solid var(--mantine-color-gray-2)',
                          background: mail.id === selectedId ? 'var(--mantine-color-indigo-0)' : undefined,
                        }}
                      >
                        <Group justify="space-between" wrap="nowrap" gap="xs">
                          <Text size="sm" fw={600} truncate>
                            {mail.subject || '(no subject)'}
                          </Text>
                          <Badge variant="light" color="gray" size="sm" style={{ flexShrink: 0 }}>
                            {formatDateTime(mail.createdAt)}
                          </Badge>
                        </Group>
                        <Text size="xs" c="dimmed" truncate>
                          To {mail.to}
                        </Text>
                      </UnstyledButton>
                    </li>
                  ))}
                </Stack>
              </ScrollArea.Autosize>
            </Paper>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 8 }}>
            <Paper withBorder radius="md" p="lg">
              {selectedId ? (
                <MessageReader id={selectedId} />
              ) : (
                <Text c="dimmed" ta="center" py="xl">
                  Choose a message to read it.
                </Text>
              )}
            </Paper>
          </Grid.Col>
        </Grid>
      </ListBody>
    </Container>
  );
}
