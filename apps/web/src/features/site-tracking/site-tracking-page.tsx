import type { SiteTrackingStatus } from '@herald/contracts';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Code,
  Group,
  List,
  SimpleGrid,
  Stack,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { IconCode, IconForms, IconId, IconWorld } from '@tabler/icons-react';
import { Link } from 'react-router';
import { formatDateTime } from '../../lib/format.ts';
import { CopyButton } from '../../ui/copy-button.tsx';
import { ListPage } from '../../ui/list-page.tsx';
import { useSiteTrackingStatus } from './site-tracking.api.ts';

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <Card withBorder radius="md" padding="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fz={24} fw={700}>
        {value}
      </Text>
    </Card>
  );
}

/** The snippet, the visits seen and how visitors are recognised. */
function SiteTrackingCards({ data }: { data: SiteTrackingStatus }) {
  return (
    <>
      <Card withBorder radius="md" padding="lg" aria-labelledby="snippet-title">
        <Stack gap="sm">
          <Group gap="xs" wrap="nowrap">
            <ThemeIcon variant="light" radius="md" aria-hidden>
              <IconCode size={18} />
            </ThemeIcon>
            <Title order={2} fz="lg" id="snippet-title">
              Add this snippet to every page of your site
            </Title>
          </Group>
          <Text size="sm" c="dimmed">
            Paste it before the closing &lt;/head&gt; tag. The script is served by Herald, weighs about 4 kB,
            sets only first-party storage on your domain and uses your account's write key (safe to publish:
            it can only add data).
          </Text>
          <Group gap="xs" wrap="nowrap" align="flex-start">
            <Code
              block
              style={{ flex: 1, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
              data-testid="site-snippet"
            >
              {data.snippet}
            </Code>
            <CopyButton value={data.snippet} label="Copy snippet" />
          </Group>
        </Stack>
      </Card>

      <Card withBorder radius="md" padding="lg" aria-labelledby="seen-title">
        <Stack gap="sm">
          <Group justify="space-between" wrap="wrap">
            <Group gap="xs" wrap="nowrap">
              <ThemeIcon variant="light" radius="md" aria-hidden>
                <IconWorld size={18} />
              </ThemeIcon>
              <Title order={2} fz="lg" id="seen-title">
                Visits
              </Title>
            </Group>
            {data.lastSeenAt ? (
              <Badge color="teal" variant="light">
                Receiving visits
              </Badge>
            ) : (
              <Badge color="gray" variant="light">
                No visits yet
              </Badge>
            )}
          </Group>
          {data.lastSeenAt ? (
            <>
              <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
                <Figure label="Visitors" value={data.visitors.toLocaleString()} />
                <Figure label="Identified" value={data.identifiedVisitors.toLocaleString()} />
                <Figure label="Page views" value={data.pageViews.toLocaleString()} />
                <Figure label="Forms" value={data.forms.toLocaleString()} />
              </SimpleGrid>
              <Text size="sm" c="dimmed">
                Last visit {formatDateTime(data.lastSeenAt)}.
              </Text>
            </>
          ) : (
            <Alert variant="light" color="blue">
              Herald hasn't seen a visit yet. Once the snippet is on your site, open one of its pages: the
              visit shows here within seconds.
            </Alert>
          )}
        </Stack>
      </Card>

      <Card withBorder radius="md" padding="lg" aria-labelledby="identify-title">
        <Stack gap="sm">
          <Group gap="xs" wrap="nowrap">
            <ThemeIcon variant="light" radius="md" aria-hidden>
              <IconId size={18} />
            </ThemeIcon>
            <Title order={2} fz="lg" id="identify-title">
              How visitors are recognised
            </Title>
          </Group>
          <List size="sm" spacing="xs">
            <List.Item>
              Every browser gets an anonymous id, kept in a first-party cookie and local storage; its page
              views are recorded under it.
            </List.Item>
            <List.Item>
              A click in a Herald email adds a signed <Code>hrld_id</Code> to the link, valid for 30 days: the
              script keeps it and takes it out of the address bar, and the visitor is known from then on.
            </List.Item>
            <List.Item>
              A submitted form with an email field identifies the visitor too, and its other fields fill the
              person as set in{' '}
              <Anchor component={Link} to="/settings/site-tracking/forms">
                tracked forms
              </Anchor>
              . Passwords, hidden fields and card numbers are never sent.
            </List.Item>
            <List.Item>
              When an anonymous visitor becomes known, the pages they viewed before move to their person.
            </List.Item>
          </List>
        </Stack>
      </Card>
    </>
  );
}

/** /settings/site-tracking: the snippet to put on the site, whether visits arrive, and how people are recognised. */
export function SiteTrackingPage() {
  const status = useSiteTrackingStatus();
  const formsLink = (
    <Button
      component={Link}
      to="/settings/site-tracking/forms"
      variant="light"
      leftSection={<IconForms size={16} />}
    >
      Tracked forms
    </Button>
  );
  return (
    <ListPage
      title="Site Tracking"
      description="See who visits your site and capture the forms they fill in, straight into people."
      actions={formsLink}
      maw={960}
      query={status}
      loadingLabel="Loading site tracking"
      skeletonHeights={[150, 90]}
      errorFallback="Error while loading site tracking."
    >
      {() => status.data && <SiteTrackingCards data={status.data} />}
    </ListPage>
  );
}
