import type { Flow, FlowStatus, InputFields } from '@herald/contracts';
import { toFlowDefinition, validateFlow } from '@herald/flow-engine';
import type { Database } from '../../db/connection.ts';
import type { Services } from '../../services.ts';
import { peopleAtSteps, type FlowRow } from './flows.queries.ts';
import { listLinks, type LinkRow } from './links.queries.ts';
import { listSteps, type StepRow } from './steps.queries.ts';
import { loadResourceLookup, toStep, type StepShapeContext } from './steps.shape.ts';

export const toLink = (row: LinkRow) => ({
  id: Number(row.id),
  flowId: Number(row.flowId),
  source: Number(row.source),
  target: Number(row.target),
  condition: row.condition,
});

/** The engine's view of one flow from its rows. */
export function definitionOf(
  flow: Pick<FlowRow, 'id' | 'version'>,
  steps: readonly StepRow[],
  links: readonly LinkRow[],
) {
  return toFlowDefinition({
    id: Number(flow.id),
    version: flow.version,
    steps: steps.map((s) => ({
      id: Number(s.id),
      operationKey: s.operationKey,
      inputFields: s.inputFields as InputFields,
    })),
    links: links.map((l) => ({ source: Number(l.source), target: Number(l.target), condition: l.condition })),
  });
}

function groupBy<T>(items: readonly T[], key: (item: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

const storedWarnings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((w): w is string => typeof w === 'string') : [];

/** Flows as the API shows them: steps keyed by id, links, and the problems that block activation. */
export async function shapeFlows(
  db: Database,
  services: Services,
  accountId: number,
  rows: readonly FlowRow[],
  options: { readOnly?: boolean } = {},
): Promise<Flow[]> {
  const ids = rows.map((r) => Number(r.id));
  // A share link shows no figures of the account's people: every step reads 0 people (docs/flows.md).
  const [steps, links, peopleAt] = await Promise.all([
    listSteps(db, accountId, ids),
    listLinks(db, accountId, ids),
    options.readOnly ? new Map<number, number>() : peopleAtSteps(db, accountId, ids),
  ]);
  const context: StepShapeContext = {
    lookup: await loadResourceLookup(db, accountId, steps),
    peopleAt,
    publicUrl: services.config.publicUrl,
    showInboundUrl: !options.readOnly,
  };
  const stepsOf = groupBy(steps, (s) => Number(s.flowId));
  const linksOf = groupBy(links, (l) => Number(l.flowId));
  return rows.map((row) => {
    const id = Number(row.id);
    const ownSteps = stepsOf.get(id) ?? [];
    const ownLinks = linksOf.get(id) ?? [];
    const shaped = ownSteps.map((s) => toStep(s, context));
    const warnings = [
      ...storedWarnings(row.warnings),
      ...validateFlow(definitionOf(row, ownSteps, ownLinks)),
    ];
    for (const step of shaped) if (step.problem && !step.mustConfig) warnings.push(step.problem);
    return {
      id,
      name: row.name,
      status: row.status as FlowStatus,
      archived: row.archived,
      steps: Object.fromEntries(shaped.map((s) => [String(s.id), s])),
      links: ownLinks.map(toLink),
      reentry: row.reentry as Flow['reentry'],
      reentryDays: row.reentryDays,
      recipe: row.recipe,
      warnings: [...new Set(warnings)],
      lastSaved: row.lastSaved?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  });
}
