import { hasScopes, metricsMessages, type EmailFigures } from '@herald/contracts';
import { Alert, Anchor, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconChartBar, IconLock } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useAccount } from '../account/account.api.ts';
import { Figure } from '../../ui/figure.tsx';
import { ListBody } from '../../ui/list-page.tsx';
import { LinkClicksTable, percent } from './metrics-figures.tsx';
import { useAllTimeStats } from './metrics.api.ts';

type Subject = { broadcastId: number } | { emailId: number };

function AllTimeFigures({ totals }: { totals: EmailFigures }) {
  return (
    <SimpleGrid cols={{ base: 2, sm: 5 }} spacing="md" aria-label="Opens and clicks">
      <Figure
        label="Opens"
        value={percent(totals.openRate)}
        hint={`${totals.uniqueOpens.toLocaleString()} people opened (${totals.opened.toLocaleString()} opens), of ${totals.delivered.toLocaleString()} delivered. Machine opens (privacy proxies, link scanners) are left out.`}
      />
      <Figure
        label="Clicks"
        value={percent(totals.clickRate)}
        hint={`${totals.uniqueClicks.toLocaleString()} people clicked (${totals.clicked.toLocaleString()} clicks), of ${totals.delivered.toLocaleString()} delivered.`}
      />
      <Figure
        label="Unsubscribes"
        value={totals.unsubscribed.toLocaleString()}
        hint="People who unsubscribed from this email."
      />
      <Figure
        label="Bounces"
        value={totals.bounced.toLocaleString()}
        hint="Messages the recipients' servers refused or returned."
      />
      <Figure
        label="Complaints"
        value={totals.complained.toLocaleString()}
        hint="Recipients who marked the email as spam."
      />
    </SimpleGrid>
  );
}

/**
 * Opens, clicks, unsubscribes, bounces and complaints of one broadcast or email since it was first sent, from the
 * metrics rollups (current within seconds), with a link to the Metrics page filtered to it.
 */
export function SendFigures({ subject }: { subject: Subject }) {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canRead = accountData ? hasScopes(accountData, ['emailMetrics:read']) : false;
  const stats = useAllTimeStats(subject, { enabled: canRead });
  if (accountData && !canRead)
    return (
      <Alert variant="light" color="gray" icon={<IconLock size={18} />}>
        Opens and clicks need the “See email metrics” permission.
      </Alert>
    );
  const data = stats.data;
  const metricsLink =
    'broadcastId' in subject
      ? `/metrics?broadcast=${subject.broadcastId}`
      : `/metrics?emails=${subject.emailId}`;
  return (
    <ListBody
      query={stats}
      loadingLabel="Loading the figures"
      skeletonHeights={[72]}
      errorFallback={metricsMessages.loadError}
      isEmpty={data?.stats.totals.sent === 0 && 'emailId' in subject}
      empty={
        <Text size="sm" c="dimmed">
          Not sent yet. Opens and clicks show here after the first send.
        </Text>
      }
    >
      {() =>
        data && (
          <Stack gap="sm">
            <AllTimeFigures totals={data.stats.totals} />
            {data.clicks && data.clicks.length > 0 && <LinkClicksTable clicks={data.clicks} />}
            <Anchor component={Link} to={metricsLink} size="sm">
              <Group gap={4}>
                <IconChartBar size={14} aria-hidden /> Open in Metrics
              </Group>
            </Anchor>
          </Stack>
        )
      }
    </ListBody>
  );
}
