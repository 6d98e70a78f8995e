import { serviceMessages } from '@herald/contracts';
import { Badge, Card, Group, List, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { z } from 'zod';
import type { ServicesResponse } from '@herald/contracts';
import { ListBody } from '../../ui/list-page.tsx';
import type { useServices } from './integrations.api.ts';

type Service = z.infer<typeof ServicesResponse>['services'][number];

function AppCard({ service }: { service: Service }) {
  return (
    <Card withBorder radius="md" p="md" role="listitem" aria-labelledby={`app-${service.id}`}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Title order={4} fz="md" id={`app-${service.id}`}>
            {service.humanName}
          </Title>
          <Badge variant="light" color="gray" tt="none" style={{ flexShrink: 0 }}>
            {service.category}
          </Badge>
        </Group>
        <Text size="sm">{service.description}</Text>
        <Text size="xs" fw={600} c="dimmed" tt="uppercase">
          How to use it today
        </Text>
        <List size="sm" spacing={4}>
          {service.howToConnect.map((line) => (
            <List.Item key={line}>{line}</List.Item>
          ))}
        </List>
      </Stack>
    </Card>
  );
}

/**
 * Third-party apps: Herald has no direct connection to them, so each says how it works with Herald now — its webhooks
 * into a flow's Webhook trigger step, or its API called from a Send webhook step.
 */
export function AppCatalogue({ services }: { services: ReturnType<typeof useServices> }) {
  return (
    <Stack gap="sm" component="section" aria-labelledby="catalogue-heading">
      <Title order={2} fz="xl" id="catalogue-heading">
        Other apps
      </Title>
      <Text size="sm" c="dimmed">
        These apps have no built-in connection in Herald. They work with Herald through webhooks: send their
        webhooks to a flow’s “Webhook trigger” step, or call their API from a “Send webhook” step.
      </Text>
      <ListBody
        query={services}
        loadingLabel="Loading apps"
        errorTitle={serviceMessages.loadError}
        errorFallback={serviceMessages.retrieveFallback}
      >
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm" role="list" aria-label="Other apps">
          {(services.data?.services ?? [])
            .filter((service) => service.kind === 'via-webhooks')
            .map((service) => (
              <AppCard key={service.id} service={service} />
            ))}
        </SimpleGrid>
      </ListBody>
    </Stack>
  );
}
