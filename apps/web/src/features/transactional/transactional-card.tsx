import { adHocEmailId } from '@herald/contracts';
import { Anchor, Card, Code, Group, List, Stack, Text, Title } from '@mantine/core';
import { CopyButton } from '../../ui/copy-button.tsx';

/** The curl call that sends one ad-hoc email with merge data, against this Herald. */
export function transactionalCurlExample(origin: string): string {
  const body = {
    emailId: adHocEmailId,
    to: 'ada@example.com',
    subject: 'Your order {{ person.orderId }}',
    html: '<p>Thanks, {{ person.firstName | default: "there" }}! Order {{ person.orderId }} is on its way.</p>',
    data: { orderId: 'A-1001' },
  };
  return [
    `curl -X POST ${origin}/v1/transactional/send \\`,
    '  -H "Authorization: Bearer $HERALD_API_KEY" \\',
    '  -H "Content-Type: application/json" \\',
    '  -H "Idempotency-Key: order-A-1001" \\',
    `  -d '${JSON.stringify(body, null, 2)}'`,
  ].join('\n');
}

/** Settings card: how to send one email (a receipt, a sign-in code) from the account's own systems. */
export function TransactionalCard() {
  const example = transactionalCurlExample(window.location.origin);
  return (
    <Card withBorder radius="md" p="lg" component="section" aria-labelledby="transactional-email-title">
      <Stack gap="md">
        <Stack gap={2}>
          <Title order={2} fz="lg" id="transactional-email-title">
            Transactional email
          </Title>
          <Text size="sm" c="dimmed">
            Send one email to one address from your own systems: receipts, sign-in codes, account notices. It
            goes under a transactional category, so a marketing unsubscribe does not stop it; a hard bounce or
            a spam complaint does.
          </Text>
        </Stack>
        <Stack gap={4}>
          <Group justify="space-between" wrap="nowrap">
            <Text size="sm" fw={500} id="transactional-example-label">
              Example request
            </Text>
            <CopyButton value={example} label="Copy example request" />
          </Group>
          {/* Scrolls sideways on narrow screens, so it takes focus and scrolls with the keyboard. */}
          <Code
            block
            fz="xs"
            role="region"
            aria-labelledby="transactional-example-label"
            tabIndex={0}
            data-testid="transactional-example"
            style={{ whiteSpace: 'pre', overflowX: 'auto' }}
          >
            {example}
          </Code>
        </Stack>
        <List size="sm" spacing={4} c="dimmed">
          <List.Item>
            Use the account's API key as <Code>$HERALD_API_KEY</Code>. A retry with the same{' '}
            <Code>Idempotency-Key</Code> sends nothing twice.
          </List.Item>
          <List.Item>
            To send a saved email, put its ID (shown on the email's page) in <Code>emailId</Code> and leave
            out <Code>subject</Code> and <Code>html</Code>. Values in <Code>data</Code> fill merge tags such
            as <Code>{'{{ person.orderId }}'}</Code>.
          </List.Item>
          <List.Item>
            The answer holds a <Code>deliveryId</Code>;{' '}
            <Code>GET /v1/transactional/&#123;deliveryId&#125;</Code> tells whether it was sent. All fields
            are in the{' '}
            <Anchor href="/v1/openapi.json" target="_blank" rel="noreferrer" size="sm" underline="always">
              API reference
            </Anchor>
            .
          </List.Item>
        </List>
      </Stack>
    </Card>
  );
}
