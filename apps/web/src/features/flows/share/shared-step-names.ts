import { useMemo } from 'react';
import type { StepNames } from '../step-display.tsx';
import { useFlowAttached } from './flow-copy.api.ts';

/**
 * Names of the emails, segments and fields a shared flow's steps use, read with its share token from the flow's
 * own account (the viewer's account, if any, has other ones); null outside read-only mode.
 */
export function useSharedStepNames(flowId: number, shareToken: string | null): StepNames | null {
  const attached = useFlowAttached(shareToken !== null ? flowId : null, shareToken);
  return useMemo(() => {
    if (shareToken === null) return null;
    const segments = new Map((attached.data?.segment ?? []).map((s) => [s.id, s.name]));
    const emails = new Map((attached.data?.email ?? []).map((e) => [e.id, e.name]));
    const fields = new Map((attached.data?.field ?? []).map((f) => [f.name, f.title || f.name]));
    return {
      segment: (id) => segments.get(id) ?? `Segment ${id}`,
      email: (id) => emails.get(id) ?? `Email ${id}`,
      field: (name) => fields.get(name) ?? name,
    };
  }, [attached.data, shareToken]);
}
