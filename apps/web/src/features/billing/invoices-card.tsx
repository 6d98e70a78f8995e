import type { ProviderInvoice } from '@herald/contracts';
import { Anchor, Badge, Card, Stack, Table, Text, Title } from '@mantine/core';
import { IconReceipt } from '@tabler/icons-react';
import { formatDate } from '../../lib/format.ts';
import { ListBody } from '../../ui/list-page.tsx';
import { useInvoices } from './billing.api.ts';

const providerNames = { chargebee: 'Card', paypal: 'PayPal' } as const;

function amountOf(invoice: ProviderInvoice): string {
  try {
    return invoice.amount.toLocaleString('en-US', { style: 'currency', currency: invoice.currency || 'USD' });
  } catch {
    return `${invoice.amount.toFixed(2)} ${invoice.currency}`;
  }
}

function statusColor(status: string): string {
  if (status === 'paid' || status === 'completed') return 'teal';
  if (status === 'refunded' || status === 'voided') return 'gray';
  return 'orange';
}

/** The invoices the payment providers keep for this account (GET /v1/billing/invoices). */
export function InvoicesCard() {
  const invoices = useInvoices();
  const list = invoices.data?.invoices ?? [];
  const empty = (
    <Stack align="center" gap={4} py="md" ta="center">
      <IconReceipt size={28} color="var(--mantine-color-gray-5)" aria-hidden />
      <Text fw={500}>No invoices yet</Text>
      <Text size="sm" c="dimmed">
        Invoices appear here once you pay for a plan by card or PayPal.
      </Text>
    </Stack>
  );
  return (
    <Card withBorder radius="md" p="lg">
      <Stack gap="sm">
        <Title order={2} fz="lg">
          Invoices
        </Title>
        <ListBody
          query={invoices}
          loadingLabel="Loading invoices"
          skeletonHeights={[36, 36, 36]}
          errorFallback="We couldn't load the invoices."
          isEmpty={list.length === 0}
          empty={empty}
        >
          <Table.ScrollContainer minWidth={480}>
            <Table verticalSpacing="xs" aria-label="Invoices">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Date</Table.Th>
                  <Table.Th>Amount</Table.Th>
                  <Table.Th>Paid by</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Invoice</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((invoice) => (
                  <Table.Tr key={`${invoice.provider}:${invoice.id}`}>
                    <Table.Td>{formatDate(invoice.date)}</Table.Td>
                    <Table.Td>{amountOf(invoice)}</Table.Td>
                    <Table.Td>{providerNames[invoice.provider]}</Table.Td>
                    <Table.Td>
                      <Badge variant="light" color={statusColor(invoice.status)}>
                        {invoice.status.replace(/_/g, ' ')}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      {invoice.url ? (
                        <Anchor href={invoice.url} target="_blank" rel="noreferrer" size="sm">
                          Open
                        </Anchor>
                      ) : (
                        <Text size="sm" c="dimmed">
                          {invoice.id}
                        </Text>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </ListBody>
      </Stack>
    </Card>
  );
}
