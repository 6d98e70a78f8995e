import type { CatalogueEntry, StepType } from '@herald/contracts';
import {
  Alert,
  Group,
  Modal,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  ThemeIcon,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { StepIcon, stepTypeColors } from './step-display.tsx';

const groupTitles: Record<StepType, string> = { trigger: 'Triggers', action: 'Actions', filter: 'Filters' };

interface StepCatalogueProps {
  opened: boolean;
  entries: CatalogueEntry[] | undefined;
  error: string | null;
  /** A flow has one trigger: with one on the canvas the triggers are shown but cannot be picked. */
  hasTrigger: boolean;
  onClose: () => void;
  onPick: (entry: CatalogueEntry) => void;
}

/**
 * The new-step popup: the step catalogue, searchable, grouped by type (triggers, actions, filters). Once the flow
 * has its trigger, the triggers come last and cannot be picked.
 */
export function StepCatalogue({ opened, entries, error, hasTrigger, onClose, onPick }: StepCatalogueProps) {
  const [search, setSearch] = useState('');
  const query = search.trim().toLowerCase();
  const visible = (entries ?? []).filter(
    (e) =>
      !e.isHidden &&
      (!query ||
        e.display.label.toLowerCase().includes(query) ||
        e.description.toLowerCase().includes(query)),
  );

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title="Add a step"
      size="xl"
      onExitTransitionEnd={() => setSearch('')}
    >
      <Stack gap="md">
        <TextInput
          aria-label="Search steps"
          placeholder="Search steps: tag, email, wait…"
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          data-autofocus
        />
        {error && (
          <Alert color="red" variant="light" role="alert">
            {error}
          </Alert>
        )}
        {!error && entries === undefined && <Text c="dimmed">Loading the steps…</Text>}
        {entries !== undefined && visible.length === 0 && (
          <Text c="dimmed">No step matches “{search.trim()}”.</Text>
        )}
        {(hasTrigger
          ? (['action', 'filter', 'trigger'] as const)
          : (['trigger', 'action', 'filter'] as const)
        ).map((type) => {
          const group = visible.filter((e) => e.type === type);
          if (group.length === 0) return null;
          const isLocked = type === 'trigger' && hasTrigger;
          return (
            <Stack key={type} gap="xs" component="section" aria-labelledby={`catalogue-${type}`}>
              <Group gap="xs" justify="space-between">
                <Title order={3} fz="sm" tt="uppercase" c="dimmed" id={`catalogue-${type}`}>
                  {groupTitles[type]}
                </Title>
                {isLocked && (
                  <Text size="xs" c="dimmed">
                    This flow has its trigger; delete it to pick another.
                  </Text>
                )}
              </Group>
              <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="xs">
                {group.map((entry) => (
                  <UnstyledButton
                    key={`${entry.serviceId}${entry.operationKey}`}
                    onClick={() => onPick(entry)}
                    disabled={isLocked}
                    p="xs"
                    style={{
                      border: '1px solid var(--mantine-color-gray-3)',
                      borderRadius: 8,
                      opacity: isLocked ? 0.55 : 1,
                      cursor: isLocked ? 'not-allowed' : 'pointer',
                    }}
                  >
                    <Group gap="sm" wrap="nowrap" align="flex-start">
                      <ThemeIcon variant="light" color={stepTypeColors[type]} radius="md" size={34}>
                        <StepIcon operationKey={entry.operationKey} />
                      </ThemeIcon>
                      <Stack gap={0} style={{ minWidth: 0 }}>
                        <Text size="sm" fw={600}>
                          {entry.display.label}
                        </Text>
                        <Text size="xs" c="dimmed" lineClamp={2}>
                          {entry.description}
                        </Text>
                      </Stack>
                    </Group>
                  </UnstyledButton>
                ))}
              </SimpleGrid>
            </Stack>
          );
        })}
      </Stack>
    </Modal>
  );
}
