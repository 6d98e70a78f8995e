import {
  defaultMetricsPreset,
  hasScopes,
  metricsMessages,
  metricsPresetLabels,
  metricsPresets,
  type MetricsPreset,
} from '@herald/contracts';
import { Group, MultiSelect, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { IconChartLine } from '@tabler/icons-react';
import { useMemo, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListPage } from '../../ui/list-page.tsx';
import { useAccount } from '../account/account.api.ts';
import { useBroadcasts } from '../broadcasts/broadcasts.api.ts';
import { useEmails } from '../emails/emails.api.ts';
import { useFlows } from '../flows/flows.api.ts';
import { FlowConversionsSection } from './flow-conversions.tsx';
import { MetricsChart } from './metrics-chart.tsx';
import { EmailFiguresTable, FigureCards, LinkClicksTable } from './metrics-figures.tsx';
import { useEmailStats, type MetricsFilters } from './metrics.api.ts';
import { periodRange } from './period-range.ts';

/** The page's filters live in its address, so a reload or a shared link shows the same figures. */
const param = { period: 'period', emails: 'emails', broadcast: 'broadcast', flow: 'flow' } as const;
const isPreset = (value: string | null): value is MetricsPreset =>
  metricsPresets.includes(value as MetricsPreset);
const ids = (value: string | null) =>
  (value ?? '')
    .split(',')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);

/** /metrics: email performance over a preset period, for all mail or by email, broadcast and flow (with its goal conversions). */
export function MetricsPage() {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canRead = accountData ? hasScopes(accountData, ['emailMetrics:read']) : false;
  const canListEmails = accountData ? hasScopes(accountData, ['emails:read']) : false;
  const canListBroadcasts = accountData ? hasScopes(accountData, ['broadcasts:read']) : false;
  const canListFlows = accountData ? hasScopes(accountData, ['flows:read']) : false;
  const [params, setParams] = useSearchParams();
  const periodParam = params.get(param.period);
  const filters: MetricsFilters = {
    period: isPreset(periodParam) ? periodParam : defaultMetricsPreset,
    emailIds: ids(params.get(param.emails)),
    broadcastId: ids(params.get(param.broadcast))[0] ?? null,
    flowId: ids(params.get(param.flow))[0] ?? null,
  };
  const stats = useEmailStats(filters, { enabled: canRead });
  const emails = useEmails('false', { enabled: canRead && canListEmails });
  const broadcasts = useBroadcasts('false', { enabled: canRead && canListBroadcasts });
  const flows = useFlows({ enabled: canRead && canListFlows });
  const emailOptions = useMemo(
    () =>
      (emails.data?.emails ?? []).map((email) => ({
        value: String(email.id),
        label: email.name || `Email ${email.id}`,
      })),
    [emails.data],
  );
  const broadcastOptions = useMemo(
    () => (broadcasts.data?.items ?? []).map((item) => ({ value: String(item.id), label: item.name })),
    [broadcasts.data],
  );
  const flowOptions = useMemo(
    () =>
      (flows.data?.integrations ?? [])
        .filter((flow) => !flow.archived)
        .map((flow) => ({ value: String(flow.id), label: flow.name })),
    [flows.data],
  );
  const chosenFlow =
    filters.flowId === null ? undefined : flows.data?.integrations.find((flow) => flow.id === filters.flowId);

  const setParam = (name: string, value: string | null) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value) next.set(name, value);
        else next.delete(name);
        return next;
      },
      { replace: true },
    );

  const filterBar = (
    <Paper withBorder radius="md" p="md">
      <Group gap="md" align="flex-end" wrap="wrap">
        <Select
          label="Period"
          data={metricsPresets.map((preset) => ({ value: preset, label: metricsPresetLabels[preset] }))}
          value={filters.period}
          onChange={(value) => setParam(param.period, value && value !== defaultMetricsPreset ? value : null)}
          allowDeselect={false}
          w={{ base: '100%', xs: 180 }}
        />
        {canListBroadcasts && (
          <Select
            label="Broadcast"
            placeholder="All broadcasts and flows"
            data={broadcastOptions}
            value={filters.broadcastId === null ? null : String(filters.broadcastId)}
            onChange={(value) => setParam(param.broadcast, value)}
            searchable
            clearable
            nothingFoundMessage="No broadcast of that name"
            style={{ flex: 1, minWidth: 200 }}
          />
        )}
        {canListFlows && (
          <Select
            label="Flow"
            placeholder="All flows"
            data={flowOptions}
            value={filters.flowId === null ? null : String(filters.flowId)}
            onChange={(value) => setParam(param.flow, value)}
            searchable
            clearable
            nothingFoundMessage="No flow of that name"
            style={{ flex: 1, minWidth: 200 }}
          />
        )}
        {canListEmails && (
          <MultiSelect
            label="Emails"
            placeholder={filters.emailIds.length ? undefined : 'All emails'}
            data={emailOptions}
            value={filters.emailIds.map(String)}
            onChange={(value) => setParam(param.emails, value.join(',') || null)}
            searchable
            clearable
            nothingFoundMessage="No email of that name"
            size="md"
            style={{ flex: 2, minWidth: 220 }}
          />
        )}
      </Group>
    </Paper>
  );

  const figures = stats.data?.stats;
  const t = figures?.totals;
  const isQuiet =
    t !== undefined && t.sent + t.opened + t.clicked + t.unsubscribed + t.bounced + t.complained === 0;
  /** The period's dates above what it shows, dimmed while another period loads. */
  const period = (shown: ReactNode) =>
    figures && (
      <Stack
        gap="md"
        style={{ opacity: stats.isPlaceholderData ? 0.6 : 1, transition: 'opacity 150ms' }}
        aria-busy={stats.isPlaceholderData}
      >
        <Text size="sm" c="dimmed">
          {periodRange(figures.startDate, figures.endDate, figures.timezone)} · times in {figures.timezone}
        </Text>
        {shown}
      </Stack>
    );
  const clicks = stats.data?.clicks ?? [];

  return (
    <ListPage
      title="Metrics"
      description="How your emails do: deliveries, opens, clicks and unsubscribes over the period you pick."
      isReady={account.data !== undefined}
      gate={{
        canRead,
        title: "You can't see email metrics",
        description:
          'Seeing metrics needs the “See email metrics” permission. Ask an owner of the account to give it to you.',
      }}
      toolbar={
        <>
          {filterBar}
          {chosenFlow && <FlowConversionsSection flow={chosenFlow} />}
        </>
      }
      query={stats}
      loadingLabel="Loading metrics"
      skeletonHeights={[96, 320, 160]}
      errorFallback={metricsMessages.loadError}
      isNoMatch={isQuiet}
      noMatch={period(
        <EmptyState
          icon={<IconChartLine size={28} />}
          title="Nothing to report yet"
          description={`${metricsMessages.noData} Try a longer period, or send a broadcast.`}
        />,
      )}
    >
      {() =>
        figures &&
        period(
          <>
            <FigureCards totals={figures.totals} />
            <MetricsChart buckets={figures.series} bucket={figures.bucket} timeZone={figures.timezone} />
            {figures.emails && figures.emails.length > 0 && (
              <Stack gap="xs">
                <Title order={2} fz="lg">
                  By email
                </Title>
                <EmailFiguresTable emails={figures.emails} />
              </Stack>
            )}
            {clicks.length > 0 && (
              <Stack gap="xs">
                <Title order={2} fz="lg">
                  Most clicked links
                </Title>
                <LinkClicksTable clicks={clicks} />
              </Stack>
            )}
          </>,
        )
      }
    </ListPage>
  );
}
