import type { Segment } from '@herald/contracts';
import { useMemo } from 'react';
import { usePersonFields } from '../people/people.api.ts';
import { useTags } from '../tags/tags.api.ts';
import type { ConditionChoices } from './condition-input.tsx';
import { useEventNames } from './segments.api.ts';

/** What the conditions editor offers: fields with types, tags, event names, and the other segments. */
export function useConditionChoices(
  enabled: boolean,
  segments: Segment[] | undefined,
  currentId: number | undefined,
): ConditionChoices {
  const fields = usePersonFields({ enabled });
  const tags = useTags({ enabled });
  const events = useEventNames({ enabled });
  return useMemo(
    () => ({
      fields: fields.data?.items ?? [],
      tags: (tags.data?.tags ?? []).map((t) => t.tag),
      eventNames: events.data?.names ?? [],
      segments: (segments ?? [])
        .filter((s) => s.id !== currentId && s.autoType !== 'allPeople')
        .map((s) => ({ id: s.id, name: s.name })),
    }),
    [fields.data, tags.data, events.data, segments, currentId],
  );
}
