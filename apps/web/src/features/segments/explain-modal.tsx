import { segmentMessages, type ConditionVerdict, type Segment } from '@herald/contracts';
import { Alert, Badge, Button, Group, Modal, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconCheck, IconX } from '@tabler/icons-react';
import { useEffect, useState, type FormEvent } from 'react';
import { errorMessage } from '../../lib/api.ts';
import type { ConditionChoices } from './condition-input.tsx';
import { conditionNames, describeNode, type ConditionNames } from './condition-text.ts';
import { PersonPicker, type PickedPerson } from './person-picker.tsx';
import { useExplain } from './segments.api.ts';

function Verdicts({ verdicts, names }: { verdicts: ConditionVerdict[]; names: ConditionNames }) {
  return (
    <Stack gap={6} component="ul" pl={0} m={0} style={{ listStyle: 'none' }}>
      {verdicts.map((v, i) => (
        <li key={i}>
          <Group gap="xs" wrap="nowrap" align="flex-start">
            <ThemeIcon
              size={20}
              radius="xl"
              color={v.matches ? 'teal' : 'red'}
              variant="light"
              role="img"
              aria-label={v.matches ? 'matches' : 'does not match'}
            >
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

/** "Why in or out?": each condition's verdict for one person, picked from a row or found by email, name or id. */
export function ExplainModal({
  segment,
  person,
  opened,
  choices,
  onClose,
}: {
  segment: Segment;
  person: PickedPerson | null;
  opened: boolean;
  choices: ConditionChoices;
  onClose: () => void;
}) {
  const [picked, setPicked] = useState<PickedPerson | null>(person);
  const explain = useExplain(segment.id);
  const { mutate, reset } = explain;
  useEffect(() => {
    if (!opened) return;
    reset();
    setPicked(person);
    if (person) mutate({ personId: person.id });
  }, [opened, person, mutate, reset]);
  const pick = (next: PickedPerson) => {
    setPicked(next);
    mutate({ personId: next.id });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (picked) mutate({ personId: picked.id });
  };
  const names = conditionNames(choices);
  const who =
    picked && explain.data?.personId === picked.id ? picked.label : `Person ${explain.data?.personId ?? ''}`;
  return (
    <Modal opened={opened} onClose={onClose} title={`Why in or out of ${segment.name}?`} size="lg" centered>
      <Stack gap="md">
        <form onSubmit={submit} noValidate>
          <Group align="flex-end" gap="sm">
            <PersonPicker key={person?.id ?? 'none'} value={picked} onChange={pick} />
            <Button type="submit" loading={explain.isPending} disabled={!picked}>
              Explain
            </Button>
          </Group>
        </form>
        {explain.isError && (
          <Alert color="red">{errorMessage(explain.error, segmentMessages.previewError)}</Alert>
        )}
        {explain.data && (
          <Stack gap="sm">
            <Badge
              size="lg"
              tt="none"
              maw="100%"
              color={explain.data.matches ? 'teal' : 'gray'}
              variant="light"
            >
              {who} is {explain.data.matches ? 'in' : 'not in'} this segment
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
