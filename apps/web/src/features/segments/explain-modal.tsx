import { segmentMessages, type ConditionVerdict, type Segment } from '@herald/contracts';
import { Alert, Badge, Button, Group, Modal, NumberInput, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconCheck, IconX } from '@tabler/icons-react';
import { useEffect, useState, type FormEvent } from 'react';
import { errorMessage } from '../../lib/api.ts';
import type { ConditionChoices } from './condition-input.tsx';
import { conditionNames, describeNode, type ConditionNames } from './condition-text.ts';
import { useExplain } from './segments.api.ts';

function Verdicts({ verdicts, names }: { verdicts: ConditionVerdict[]; names: ConditionNames }) {
  return (
    <Stack gap={6} component="ul" pl={0} m={0} style={{ listStyle: 'none' }}>
      {verdicts.map((v, i) => (
        <li key={i}>
          <Group gap="xs" wrap="nowrap" align="flex-start">
            <ThemeIcon size={20} radius="xl" color={v.matches ? 'teal' : 'red'} variant="light" aria-label={v.matches ? 'matches' : 'does not match'}>
              {v.matches ? <IconCheck size={14} /> : <IconX size={14} />}
            </ThemeIcon>
            <Text size="sm">{describeNode(v.node, names)}</Text>
          </Group>
          {v.children && (
            <div style={{ paddingLeft: 28, paddingTop: 6 }}>
              <Verdicts verdicts={v.children} names={names} />
            </div>
          )}
        </li>
      ))}
    </Stack>
  );
}

/** "Why in or out?": each condition's verdict for one person. */
export function ExplainModal({ segment, personId, opened, choices, onClose }: { segment: Segment; personId: number | null; opened: boolean; choices: ConditionChoices; onClose: () => void }) {
  const [id, setId] = useState<number | ''>(personId ?? '');
  const explain = useExplain(segment.id);
  const { mutate, reset } = explain;
  useEffect(() => {
    if (!opened) return;
    reset();
    setId(personId ?? '');
    if (personId) mutate({ personId });
  }, [opened, personId, mutate, reset]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (typeof id === 'number') explain.mutate({ personId: id });
  };
  const names = conditionNames(choices);
  return (
    <Modal opened={opened} onClose={onClose} title={`Why in or out of ${segment.name}?`} size="lg" centered>
      <Stack gap="md">
        <form onSubmit={submit} noValidate>
          <Group align="flex-end" gap="sm">
            <NumberInput label="Person id" min={1} value={id} onChange={(v) => setId(typeof v === 'number' ? v : '')} w={180} data-autofocus />
            <Button type="submit" loading={explain.isPending} disabled={typeof id !== 'number'}>
              Explain
            </Button>
          </Group>
        </form>
        {explain.isError && <Alert color="red">{errorMessage(explain.error, segmentMessages.previewError)}</Alert>}
        {explain.data && (
          <Stack gap="sm">
            <Badge size="lg" color={explain.data.matches ? 'teal' : 'gray'} variant="light">
              Person {explain.data.personId} is {explain.data.matches ? 'in' : 'not in'} this segment
            </Badge>
            {explain.data.verdicts.length === 0 ? (
              <Text size="sm" c="dimmed">
                This segment has no conditions: everyone who is not archived is in it.
              </Text>
            ) : (
              <Verdicts verdicts={explain.data.verdicts} names={names} />
            )}
          </Stack>
        )}
      </Stack>
    </Modal>
  );
}
