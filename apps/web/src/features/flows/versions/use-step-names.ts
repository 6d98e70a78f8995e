import { useMemo } from 'react';
import { useEmails } from '../../emails/emails.api.ts';
import { usePersonFields } from '../../people/people.api.ts';
import { useSegments } from '../../segments/segments.api.ts';
import type { StepNames } from '../step-display.tsx';

/** Names of the emails, segments and fields versions point at (ids until the lists arrive, or for deleted ones). */
export function useVersionStepNames(enabled: boolean): StepNames {
  const emails = useEmails('false', { enabled });
  const segments = useSegments({ enabled });
  const fields = usePersonFields({ enabled });
  return useMemo(() => {
    const emailNames = new Map((emails.data?.emails ?? []).map((e) => [e.id, e.name]));
    const segmentNames = new Map((segments.data?.segments ?? []).map((s) => [s.id, s.name]));
    const fieldNames = new Map((fields.data?.items ?? []).map((f) => [f.name, f.title || f.name]));
    return {
      email: (id) => emailNames.get(id) ?? `Email ${id}`,
      segment: (id) => segmentNames.get(id) ?? `Segment ${id}`,
      field: (name) => fieldNames.get(name) ?? name,
    };
  }, [emails.data, segments.data, fields.data]);
}
