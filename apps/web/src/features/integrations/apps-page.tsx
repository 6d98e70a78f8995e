import { hasScopes } from '@herald/contracts';
import { Stack, Title } from '@mantine/core';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { useAccount } from '../account/account.api.ts';
import { AppCatalogue } from './app-catalogue.tsx';
import { useServices } from './integrations.api.ts';
import { SlackCard } from './slack-card.tsx';
import { WebhookEndpoints } from './webhook-endpoints.tsx';

/** /apps and /settings/apps: connected apps (docs/apps-and-webhooks.md) — Slack, outgoing webhooks, and how other apps work with Herald. */
export function AppsPage() {
  const account = useAccount();
  const services = useServices();
  if (!account.data) return <LoadingSpinner />;
  const canWrite = hasScopes(account.data.teamMember.accountData, ['apps:write']);
  const slackSteps = services.data?.services.find((s) => s.id === 'slack')?.howToConnect ?? [];
  return (
    <Stack gap="lg" py="md">
      <PageHeader
        title="Apps"
        description="Connect Slack, send Herald's changes to your own servers, and see how other tools work with Herald."
      />
      <Stack gap="sm" component="section" aria-labelledby="connected-heading">
        <Title order={2} fz="xl" id="connected-heading">
          Connected apps
        </Title>
        <SlackCard canWrite={canWrite} steps={slackSteps} />
        <WebhookEndpoints canWrite={canWrite} />
      </Stack>
      <AppCatalogue services={services} />
    </Stack>
  );
}
