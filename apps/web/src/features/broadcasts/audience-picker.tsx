import type { Audience, AudienceCount } from '@herald/contracts';
import {
  Card,
  Group,
  Loader,
  MultiSelect,
  SegmentedControl,
  Stack,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { IconUsers } from '@tabler/icons-react';
import { useSegments } from '../segments/segments.api.ts';
import { useTags } from '../tags/tags.api.ts';

type AudienceType = Audience['type'];

interface AudiencePickerProps {
  audience: Audience;
  onChange: (audience: Audience) => void;
  readOnly: boolean;
  /** The live count for the audience on screen (after exclusions), or null before the first answer. */
  count: AudienceCount | null;
  isCounting: boolean;
  countError: string | null;
}

/** The same exclusions under another audience type: switching between everyone, segments and tags keeps them. */
function withType(audience: Audience, type: AudienceType): Audience {
  const exclusions = {
    ...(audience.excludeSegmentIds?.length ? { excludeSegmentIds: audience.excludeSegmentIds } : {}),
    ...(audience.excludeTags?.length ? { excludeTags: audience.excludeTags } : {}),
  };
  if (type === 'segments')
    return { type, segmentIds: audience.type === 'segments' ? audience.segmentIds : [], ...exclusions };
  if (type === 'tags') return { type, tags: audience.type === 'tags' ? audience.tags : [], ...exclusions };
  return { type: 'all', ...exclusions };
}

/** True when the audience names what it needs (segments or tags picked). */
export function isAudienceComplete(audience: Audience): boolean {
  if (audience.type === 'segments') return audience.segmentIds.length > 0;
  if (audience.type === 'tags') return audience.tags.length > 0;
  return true;
}

function CountLine({
  count,
  isCounting,
  countError,
  complete,
}: {
  count: AudienceCount | null;
  isCounting: boolean;
  countError: string | null;
  complete: boolean;
}) {
  if (!complete)
    return (
      <Text size="sm" c="dimmed">
        Pick at least one to see how many people get this broadcast.
      </Text>
    );
  if (countError)
    return (
      <Text size="sm" c="red">
        {countError}
      </Text>
    );
  if (!count)
    return (
      <Group gap="xs">
        <Loader size="xs" aria-hidden />
        <Text size="sm" c="dimmed">
          Counting recipients…
        </Text>
      </Group>
    );
  const excluded = count.total - count.deliverable;
  return (
    <Stack gap={2}>
      <Group gap="xs" wrap="nowrap">
        <Text size="lg" fw={700} data-testid="recipient-count">
          {count.deliverable.toLocaleString()} {count.deliverable === 1 ? 'recipient' : 'recipients'}
        </Text>
        {isCounting && (
          <>
            <Loader size="xs" aria-hidden />
            <VisuallyHidden>Updating the count</VisuallyHidden>
          </>
        )}
      </Group>
      <Text size="xs" c="dimmed">
        {count.total.toLocaleString()} in this audience after exclusions
        {excluded > 0
          ? `; ${excluded.toLocaleString()} can't receive it (suppressed, unsubscribed, opted out, not confirmed yet or without an address)`
          : ''}
        .
      </Text>
      {(count.pendingConfirmation ?? 0) > 0 && (
        <Text size="xs" c="dimmed" data-testid="pending-confirmation-count">
          {count.pendingConfirmation!.toLocaleString()} waiting to confirm their subscription (double opt-in)
          get marketing email once they confirm.
        </Text>
      )}
    </Stack>
  );
}

/** Who gets the broadcast: everyone, some segments or some tags, minus excluded segments and tags; with the live count. */
export function AudiencePicker({
  audience,
  onChange,
  readOnly,
  count,
  isCounting,
  countError,
}: AudiencePickerProps) {
  const segments = useSegments();
  const tags = useTags();
  // Archived people never get mail, and All People is what “Everyone” means.
  const segmentChoices = (segments.data?.segments ?? [])
    .filter((segment) => segment.autoType !== 'archived' && segment.autoType !== 'allPeople')
    .map((segment) => ({ value: String(segment.id), label: segment.name }));
  const tagChoices = (tags.data?.tags ?? []).map((tag) => ({ value: tag.tag, label: tag.tag }));
  const complete = isAudienceComplete(audience);
  const loadingNote = (query: { isPending: boolean; isError: boolean }, what: string) =>
    query.isError ? `Couldn't load ${what}.` : query.isPending ? `Loading ${what}…` : undefined;

  return (
    <Card withBorder radius="md" p="lg">
      <Stack gap="md">
        <Group gap="xs">
          <IconUsers size={18} aria-hidden />
          <Title order={2} fz="lg">
            Audience
          </Title>
        </Group>
        <SegmentedControl
          aria-label="Who gets it"
          value={audience.type}
          disabled={readOnly}
          onChange={(value) => onChange(withType(audience, value as AudienceType))}
          data={[
            { value: 'all', label: 'Everyone' },
            { value: 'segments', label: 'Segments' },
            { value: 'tags', label: 'Tags' },
          ]}
          w="fit-content"
          maw="100%"
        />
        {audience.type === 'segments' && (
          <MultiSelect
            label="Segments"
            description="People in any of these segments get it."
            placeholder={audience.segmentIds.length ? undefined : 'Choose segments'}
            data={segmentChoices}
            value={audience.segmentIds.map(String)}
            onChange={(values) => onChange({ ...audience, segmentIds: values.map(Number) })}
            searchable
            readOnly={readOnly}
            nothingFoundMessage="No segment of that name"
            error={loadingNote(segments, 'segments')}
          />
        )}
        {audience.type === 'tags' && (
          <MultiSelect
            label="Tags"
            description="People with any of these tags get it."
            placeholder={audience.tags.length ? undefined : 'Choose tags'}
            data={tagChoices}
            value={audience.tags}
            onChange={(values) => onChange({ ...audience, tags: values })}
            searchable
            readOnly={readOnly}
            nothingFoundMessage="No tag of that name"
            error={loadingNote(tags, 'tags')}
          />
        )}
        <Group grow align="flex-start" wrap="wrap" gap="md">
          <MultiSelect
            label="Exclude segments"
            placeholder={audience.excludeSegmentIds?.length ? undefined : 'None'}
            data={segmentChoices}
            value={(audience.excludeSegmentIds ?? []).map(String)}
            onChange={(values) => onChange({ ...audience, excludeSegmentIds: values.map(Number) })}
            searchable
            readOnly={readOnly}
            style={{ minWidth: 220 }}
          />
          <MultiSelect
            label="Exclude tags"
            placeholder={audience.excludeTags?.length ? undefined : 'None'}
            data={tagChoices}
            value={audience.excludeTags ?? []}
            onChange={(values) => onChange({ ...audience, excludeTags: values })}
            searchable
            readOnly={readOnly}
            style={{ minWidth: 220 }}
          />
        </Group>
        {!readOnly && (
          <div role="status" aria-live="polite">
            <CountLine count={count} isCounting={isCounting} countError={countError} complete={complete} />
          </div>
        )}
      </Stack>
    </Card>
  );
}
