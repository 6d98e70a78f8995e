import type { FlowCopyCounts } from '@herald/contracts';
import { freeFieldKey, freeName } from './flows.copy-remap.ts';

/**
 * What a copy into another account does with each email, segment and custom field the flow brings, decided from
 * what the target already has, before anything is written (the copy and its preview share it).
 */

export type SourceField = { name: string; type: string; title: string; mergeTagOnly: boolean };
export type SourceEmail = { id: number; name: string };
export type SourceSegment = { id: number; name: string; autoType: string | null };

/** The flow's resources in the source account; segments in an order where each comes after those it refers to. */
export type SourceResources<
  E extends SourceEmail = SourceEmail,
  S extends SourceSegment = SourceSegment,
  F extends SourceField = SourceField,
> = {
  emails: E[];
  segments: S[];
  fields: F[];
};

/** What the target account already has, as far as names go. */
export type TargetState = {
  fields: { name: string; type: string; title: string }[];
  emailNames: string[];
  segmentNames: string[];
  /** The target's automatic segments by type. */
  automatic: Map<string, number>;
};

export type FieldPlan<F> = { source: F; key: string; create: boolean; title: string };
export type SegmentPlan<S> =
  { source: S; create: false; targetId: number } | { source: S; create: true; name: string };
export type CopyPlan<E, S, F> = {
  emails: { source: E; name: string }[];
  segments: SegmentPlan<S>[];
  fields: FieldPlan<F>[];
};

/**
 * The decisions: a custom field whose key the target has (in any letter case) with the same type is reused; with
 * another type it is created under a new key ("plan_2"), unless only merge tags name it (they are kept as written,
 * so the target's field of that key is used). Emails and segments are created, named so they clash with nothing
 * in the target ("Welcome (copy)", "Welcome (2)"); an automatic segment is the target's own of the same type.
 */
export function planCopy<E extends SourceEmail, S extends SourceSegment, F extends SourceField>(
  source: SourceResources<E, S, F>,
  target: TargetState,
): CopyPlan<E, S, F> {
  const byLower = new Map(target.fields.map((f) => [f.name.toLowerCase(), f]));
  // A new key avoids the target's keys and the flow's own (a flow bringing 'score' and 'score_2' keeps both apart).
  const takenKeys = new Set([...byLower.keys(), ...source.fields.map((f) => f.name.toLowerCase())]);
  const takenTitles = new Set(target.fields.map((f) => f.title));
  const fields = source.fields.map((field): FieldPlan<F> => {
    const existing = byLower.get(field.name.toLowerCase());
    if (existing && (existing.type === field.type || field.mergeTagOnly))
      return { source: field, key: existing.name, create: false, title: existing.title };
    const key = existing ? freeFieldKey(field.name, takenKeys) : field.name;
    const title = freeName(field.title, takenTitles);
    takenKeys.add(key.toLowerCase());
    takenTitles.add(title);
    return { source: field, key, create: true, title };
  });
  const emailNames = new Set(target.emailNames);
  const emails = source.emails.map((email) => {
    const name = freeName(email.name, emailNames);
    emailNames.add(name);
    return { source: email, name };
  });
  const segmentNames = new Set(target.segmentNames);
  const segments = source.segments.map((segment): SegmentPlan<S> => {
    const own = segment.autoType ? target.automatic.get(segment.autoType) : undefined;
    if (own !== undefined) return { source: segment, create: false, targetId: own };
    const name = freeName(segment.name, segmentNames);
    segmentNames.add(name);
    return { source: segment, create: true, name };
  });
  return { emails, segments, fields };
}

export function planCounts(plan: CopyPlan<unknown, unknown, unknown>): FlowCopyCounts {
  return {
    emails: plan.emails.length,
    segments: plan.segments.filter((s) => s.create).length,
    fields: plan.fields.filter((f) => f.create).length,
  };
}
