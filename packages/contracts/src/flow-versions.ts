import { z } from 'zod';
import { Coordinates, Flow, InputFields, reentryModes } from './flows.ts';

/**
 * Versions of a flow (issue 20): switching a flow on saves what it does (steps, links, re-entry rule) as a numbered
 * version when it differs from the last one. A version can be read, compared with another, and restored.
 */
export const FlowSnapshotStep = z.object({
  id: z.number().int(),
  operationKey: z.string(),
  inputFields: InputFields,
  coordinates: Coordinates,
});
export type FlowSnapshotStep = z.infer<typeof FlowSnapshotStep>;

export const FlowSnapshotLink = z.object({
  source: z.number().int(),
  target: z.number().int(),
  condition: z.string().nullable(),
});
export type FlowSnapshotLink = z.infer<typeof FlowSnapshotLink>;

export const FlowSnapshotSettings = z.object({
  reentry: z.enum(reentryModes),
  reentryDays: z.number().int().nullable(),
});
export type FlowSnapshotSettings = z.infer<typeof FlowSnapshotSettings>;

/** What a version holds: the flow's steps (by id, with settings and canvas places), its links and its settings. */
export const FlowSnapshot = z.object({
  steps: z.array(FlowSnapshotStep),
  links: z.array(FlowSnapshotLink),
  settings: FlowSnapshotSettings,
});
export type FlowSnapshot = z.infer<typeof FlowSnapshot>;

/** One changed setting of a step, by its path in the decoded settings ("wait.amount"). */
export const SettingChange = z.object({ path: z.string(), before: z.unknown(), after: z.unknown() });
export type SettingChange = z.infer<typeof SettingChange>;

/** From one snapshot to another: steps added, removed or changed, links added or removed, flow settings changed. */
export const VersionDiff = z.object({
  steps: z.object({
    added: z.array(FlowSnapshotStep),
    removed: z.array(FlowSnapshotStep),
    changed: z.array(
      z.object({ before: FlowSnapshotStep, after: FlowSnapshotStep, settings: z.array(SettingChange) }),
    ),
  }),
  links: z.object({ added: z.array(FlowSnapshotLink), removed: z.array(FlowSnapshotLink) }),
  settings: z.array(SettingChange),
});
export type VersionDiff = z.infer<typeof VersionDiff>;

export const FlowVersionSummary = z.object({
  number: z.number().int(),
  createdAt: z.string(),
  /** Who switched the flow on (null when that team member is gone). */
  createdBy: z.object({ id: z.number().int(), name: z.string(), email: z.string() }).nullable(),
  stepCount: z.number().int(),
  linkCount: z.number().int(),
});
export type FlowVersionSummary = z.infer<typeof FlowVersionSummary>;

/** GET /v1/integrations/{id}/versions: newest first; `matchesCurrent` is the version the flow is now the same as, if any. */
export const FlowVersionList = z.object({
  versions: z.array(FlowVersionSummary),
  matchesCurrent: z.number().int().nullable(),
});

export const FlowVersionParams = z.object({
  id: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 53),
  number: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 31 - 1),
});
/** ?compare={number}: also answer the diff from that version to this one. */
export const FlowVersionQuery = z.object({
  compare: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 31 - 1)
    .optional(),
});

/** GET /v1/integrations/{id}/versions/{number}. */
export const FlowVersionResponse = z.object({
  version: FlowVersionSummary.extend({ snapshot: FlowSnapshot }),
  /** With ?compare=m: what changed from version m to this one. */
  diff: VersionDiff.nullable(),
});

/** POST /v1/integrations/{id}/versions/{number}/restore: an active flow needs confirmActiveEdit. */
export const RestoreFlowVersionBody = z.strictObject({ confirmActiveEdit: z.boolean().optional() });
export const RestoreFlowVersionResponse = z.object({ integration: Flow, message: z.string() });

export const flowVersionMessages = {
  notFound: 'Version not found.',
  compareNotFound: 'The version to compare with does not exist.',
  restored: (n: number) => `Version ${n} restored. Switch the flow on to run it.`,
  restoredActive: (n: number) => `Version ${n} restored. People in the flow go on with it.`,
} as const;
