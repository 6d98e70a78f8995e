import {
  consentActionLabels,
  consentSourceLabels,
  type ConsentHistory,
  type ConsentRecord,
} from '@herald/contracts';
import { Badge, Button, Card, Group, Text, ThemeIcon, Timeline, Title, Tooltip } from '@mantine/core';
import {
  IconAdjustments,
  IconCircleCheck,
  IconMailForward,
  IconMailOff,
  IconUserPlus,
} from '@tabler/icons-react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { formatDateTime, formatRelative } from '../../lib/format.ts';
import { ListBody } from '../../ui/list-page.tsx';
import { useConsentHistory, useResendToPerson } from './consent.api.ts';

const icons = {
  subscribe: <IconUserPlus size={14} />,
  confirm: <IconCircleCheck size={14} />,
  unsubscribe: <IconMailOff size={14} />,
  preferences: <IconAdjustments size={14} />,
} as const;

function StatusBadge({ status }: { status: ConsentHistory['status'] }) {
  if (status === 'pending')
    return (
      <Badge color="orange" variant="light" size="sm">
        Waiting to confirm
      </Badge>
    );
  if (status === 'confirmed')
    return (
      <Badge color="teal" variant="light" size="sm">
        Confirmed
      </Badge>
    );
  return null;
}

/** What the record says beyond its action and source: the choices of a preference change, a failed email. */
function detailLine(record: ConsentRecord): string | null {
  const choices = record.details.choices;
  if (record.action === 'preferences' && choices && typeof choices === 'object')
    return Object.entries(choices as Record<string, unknown>)
      .map(([name, value]) => `${name}: ${String(value)}`)
      .join(', ');
  if (record.action === 'subscribe' && record.details.doubleOptIn === true)
    return 'Double opt-in: a confirmation email was sent.';
  return null;
}

/**
 * Proof of consent (GET /v1/people/{id}/consent): every subscribe, confirm, unsubscribe and preference change. A
 * person who waits to confirm can be sent the confirmation email again (POST /v1/people/{id}/consent/resend).
 */
export function PersonConsent({ personId, canWrite }: { personId: number; canWrite: boolean }) {
  const history = useConsentHistory(personId);
  const resend = useResendToPerson(personId);
  const records = history.data?.records ?? [];
  const isPending = history.data?.status === 'pending';
  return (
    <Card withBorder radius="md" p="lg" data-testid="person-consent">
      <Group justify="space-between" mb="md" gap="xs">
        <Title order={2} fz={18}>
          Consent history
        </Title>
        {history.data && <StatusBadge status={history.data.status} />}
      </Group>
      {isPending && canWrite && (
        <Group justify="space-between" gap="xs" mb="md" wrap="wrap">
          <Text size="sm" c="dimmed" style={{ flex: '1 1 200px' }}>
            No marketing email until they confirm.
          </Text>
          <Button
            size="xs"
            variant="light"
            leftSection={<IconMailForward size={14} />}
            loading={resend.isPending}
            onClick={() =>
              resend.mutate(undefined, {
                onSuccess: (answer) => notifySuccess(answer.message),
                onError: (error) => notifyError(error, 'The confirmation email could not be sent.'),
              })
            }
          >
            Send confirmation again
          </Button>
        </Group>
      )}
      <ListBody
        query={history}
        loadingLabel="Loading consent history"
        skeletonHeights={[40, 40]}
        errorFallback="Error while loading the consent history."
        isEmpty={records.length === 0}
        empty={
          <Text size="sm" c="dimmed">
            No consent recorded yet. Sign-ups by form, API or import, confirmations, unsubscribes and
            preference changes show here with when, where from and what the person agreed to.
          </Text>
        }
      >
        <Timeline bulletSize={26} lineWidth={2}>
          {records.map((record) => {
            const detail = detailLine(record);
            return (
              <Timeline.Item
                key={record.id}
                bullet={
                  <ThemeIcon size={26} radius="xl" variant="light">
                    {icons[record.action]}
                  </ThemeIcon>
                }
                title={
                  <Text size="sm" fw={500}>
                    {consentActionLabels[record.action]} · {consentSourceLabels[record.source]}
                  </Text>
                }
              >
                {record.consentText && (
                  <Text size="xs" fs="italic" style={{ wordBreak: 'break-word' }}>
                    “{record.consentText}”
                  </Text>
                )}
                {detail && (
                  <Text size="xs" c="dimmed">
                    {detail}
                  </Text>
                )}
                <Tooltip label={formatDateTime(record.at)} withArrow>
                  <Text size="xs" c="dimmed" w="fit-content">
                    {formatRelative(record.at)}
                    {record.ip ? ` · IP ${record.ip}` : ''}
                    {record.userAgent ? ` · ${record.userAgent}` : ''}
                  </Text>
                </Tooltip>
              </Timeline.Item>
            );
          })}
        </Timeline>
      </ListBody>
    </Card>
  );
}
