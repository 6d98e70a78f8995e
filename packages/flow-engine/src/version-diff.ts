import {
  decodeInputFields,
  type FlowSnapshot,
  type FlowSnapshotLink,
  type FlowSnapshotStep,
  type SettingChange,
  type VersionDiff,
} from '@herald/contracts';

/**
 * Comparing two versions of a flow (issue 20). Steps are matched by id; a step is changed when its operation or its
 * decoded settings differ. Canvas places are layout, not behaviour: moving a step is not a change (a version is only
 * written when what the flow does changed), though a snapshot keeps them so a restore puts steps back where they were.
 */

const linkKey = (link: FlowSnapshotLink) => `${link.source}>${link.target}#${link.condition ?? ''}`;

/** A stable form for JSON comparison: object keys sorted at every level. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

/** `{ wait: { amount: 1 } }` → `[['wait.amount', 1]]`; arrays and scalars are leaves. */
function leaves(value: Record<string, unknown>, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, inner] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (
      inner !== null &&
      typeof inner === 'object' &&
      !Array.isArray(inner) &&
      Object.keys(inner).length > 0
    ) {
      for (const [p, v] of leaves(inner as Record<string, unknown>, path)) out.set(p, v);
    } else {
      out.set(path, inner);
    }
  }
  return out;
}

/** The settings of a step that differ between two of its versions, path by path (the operation as 'operation'). */
export function stepSettingChanges(before: FlowSnapshotStep, after: FlowSnapshotStep): SettingChange[] {
  const changes: SettingChange[] = [];
  if (before.operationKey !== after.operationKey)
    changes.push({ path: 'operation', before: before.operationKey, after: after.operationKey });
  const a = leaves(decodeInputFields(before.inputFields));
  const b = leaves(decodeInputFields(after.inputFields));
  for (const path of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    if (!same(a.get(path), b.get(path))) changes.push({ path, before: a.get(path), after: b.get(path) });
  }
  return changes;
}

/** Steps sorted by id and links by their ends, so equal flows give equal snapshots. */
export function normalizeSnapshot(snapshot: FlowSnapshot): FlowSnapshot {
  return {
    steps: [...snapshot.steps].sort((a, b) => a.id - b.id),
    links: [...snapshot.links].sort((a, b) =>
      linkKey(a) < linkKey(b) ? -1 : linkKey(a) > linkKey(b) ? 1 : 0,
    ),
    settings: { reentry: snapshot.settings.reentry, reentryDays: snapshot.settings.reentryDays },
  };
}

/** What changed from `from` to `to`: steps added, removed and changed (with each setting before → after), links, settings. */
export function diffVersions(from: FlowSnapshot, to: FlowSnapshot): VersionDiff {
  const a = normalizeSnapshot(from);
  const b = normalizeSnapshot(to);
  const before = new Map(a.steps.map((s) => [s.id, s]));
  const after = new Map(b.steps.map((s) => [s.id, s]));
  const changed: VersionDiff['steps']['changed'] = [];
  for (const step of b.steps) {
    const old = before.get(step.id);
    if (!old) continue;
    const settings = stepSettingChanges(old, step);
    if (settings.length > 0) changed.push({ before: old, after: step, settings });
  }
  const linksBefore = new Set(a.links.map(linkKey));
  const linksAfter = new Set(b.links.map(linkKey));
  const settings: SettingChange[] = [];
  if (a.settings.reentry !== b.settings.reentry)
    settings.push({ path: 'reentry', before: a.settings.reentry, after: b.settings.reentry });
  if (a.settings.reentryDays !== b.settings.reentryDays)
    settings.push({ path: 'reentryDays', before: a.settings.reentryDays, after: b.settings.reentryDays });
  return {
    steps: {
      added: b.steps.filter((s) => !before.has(s.id)),
      removed: a.steps.filter((s) => !after.has(s.id)),
      changed,
    },
    links: {
      added: b.links.filter((l) => !linksBefore.has(linkKey(l))),
      removed: a.links.filter((l) => !linksAfter.has(linkKey(l))),
    },
    settings,
  };
}

/** True when two snapshots do the same thing (nothing added, removed or changed). */
export function isEmptyDiff(diff: VersionDiff): boolean {
  return (
    diff.steps.added.length +
      diff.steps.removed.length +
      diff.steps.changed.length +
      diff.links.added.length +
      diff.links.removed.length +
      diff.settings.length ===
    0
  );
}

/** `from` with the diff applied: the snapshot the diff leads to (canvas places of unchanged steps stay `from`'s). */
export function applyDiff(from: FlowSnapshot, diff: VersionDiff): FlowSnapshot {
  const removed = new Set(diff.steps.removed.map((s) => s.id));
  const replaced = new Map(diff.steps.changed.map((c) => [c.after.id, c.after]));
  const linksRemoved = new Set(diff.links.removed.map(linkKey));
  const settings = { ...from.settings };
  for (const change of diff.settings) {
    if (change.path === 'reentry') settings.reentry = change.after as FlowSnapshot['settings']['reentry'];
    if (change.path === 'reentryDays') settings.reentryDays = change.after as number | null;
  }
  return normalizeSnapshot({
    steps: [
      ...from.steps.filter((s) => !removed.has(s.id)).map((s) => replaced.get(s.id) ?? s),
      ...diff.steps.added,
    ],
    links: [...from.links.filter((l) => !linksRemoved.has(linkKey(l))), ...diff.links.added],
    settings,
  });
}
