import { TagPicker, SegmentPicker } from './pickers.tsx';

/** A step's settings being edited: its decoded inputFields. */
export type Draft = Record<string, unknown>;

/** What every section of the step form gets: the operation, the draft and a way to change one of its keys. */
export interface SettingsProps {
  operationKey: string;
  /** The saved step's id; null while it is being created. */
  stepId: number | null;
  draft: Draft;
  set: (key: string, value: unknown) => void;
  isReadOnly: boolean;
  outputFields: Record<string, unknown> | null;
}

export const refId = (value: unknown): number | null =>
  value && typeof value === 'object' && 'id' in value && typeof value.id === 'number' ? value.id : null;
export const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;
export const num = (value: unknown, fallback: number): number =>
  typeof value === 'number' ? value : fallback;

type FieldProps = Pick<SettingsProps, 'draft' | 'set' | 'isReadOnly'> & {
  label: string;
  description?: string;
};

/** The draft's `segment` ({ id }), as triggers, filters and the time trigger's audience pick it. */
export function SegmentField({ label, description, draft, set, isReadOnly }: FieldProps) {
  return (
    <SegmentPicker
      label={label}
      description={description}
      value={refId(draft.segment)}
      onChange={(id) => set('segment', id === null ? undefined : { id })}
      isReadOnly={isReadOnly}
    />
  );
}

/** The draft's `tag`, as tag triggers, tag actions and the tag filter pick it. */
export function TagField({ label, draft, set, isReadOnly }: FieldProps) {
  return (
    <TagPicker
      label={label}
      value={str(draft.tag)}
      onChange={(v) => set('tag', v ?? undefined)}
      isReadOnly={isReadOnly}
    />
  );
}
