import type { CatalogueEntry, Flow } from '@herald/contracts';
import { Anchor, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { ListBody } from '../../ui/list-page.tsx';
import { useServices } from '../flows/flows.api.ts';
import { useFlowConversions } from '../flows/goals/goals.api.ts';
import { stepLabel } from '../flows/step-display.tsx';

const percent = (rate: number) => `${(rate * 100).toFixed(rate > 0 && rate < 0.001 ? 2 : 1)}%`;

/**
 * The goal conversions of the flow picked on the Metrics page: the flow's total and, per step, how many runs passed
 * it and how many of those reached the goal (the canvas shows the same figures on its nodes). All time: a run
 * converts whenever it reaches the goal, not within the page's period.
 */
export function FlowConversionsSection({ flow }: { flow: Flow }) {
  const conversions = useFlowConversions(flow.id);
  const services = useServices();
  const catalogue = useMemo(
    () =>
      new Map<string, CatalogueEntry>(
        (services.data?.steps ?? []).map((entry) => [entry.operationKey, entry]),
      ),
    [services.data],
  );
  const steps = new Map(Object.values(flow.steps).map((step) => [step.id, step]));

  const figures = conversions.data;
  const body = (
    <ListBody
      query={conversions}
      loadingLabel="Loading conversions"
      skeletonHeights={[120]}
      errorFallback="We couldn’t load the conversions of this flow."
      isEmpty={figures?.hasGoal === false}
      empty={
        <Text size="sm" c="dimmed">
          This flow has no goal. Set one on the{' '}
          <Anchor component={Link} to={`/flows/${flow.id}`}>
            flow’s page
          </Anchor>{' '}
          to count the people who reach it, step by step.
        </Text>
      }
    >
      {() =>
        figures && (
          <Stack gap="sm">
            <Group gap="xl">
              <Text size="sm">
                <Text span fw={600}>
                  {figures.conversions.toLocaleString()}
                </Text>{' '}
                of {figures.entries.toLocaleString()} people who entered reached the goal (
                {percent(figures.rate)})
              </Text>
            </Group>
            <Table.ScrollContainer minWidth={420}>
              <Table striped highlightOnHover aria-label={`Goal conversions by step of ${flow.name}`}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Step</Table.Th>
                    <Table.Th ta="right">Passed</Table.Th>
                    <Table.Th ta="right">Converted</Table.Th>
                    <Table.Th ta="right">Conversion rate</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {figures.steps.map((row) => {
                    const step = steps.get(row.stepId);
                    return (
                      <Table.Tr key={row.stepId}>
                        <Table.Td>
                          {step ? stepLabel(step.operationKey, catalogue) : `Step ${row.stepId} (removed)`}
                        </Table.Td>
                        <Table.Td ta="right">{row.passed.toLocaleString()}</Table.Td>
                        <Table.Td ta="right">{row.converted.toLocaleString()}</Table.Td>
                        <Table.Td ta="right">
                          {row.passed ? percent(row.converted / row.passed) : '–'}
                        </Table.Td>
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </Stack>
        )
      }
    </ListBody>
  );

  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap="sm">
        <Title order={2} fz="lg">
          Goal conversions of “{flow.name}”
        </Title>
        {body}
      </Stack>
    </Paper>
  );
}
