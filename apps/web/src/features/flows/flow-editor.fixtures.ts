import type { Flow, Link, Step } from '@herald/contracts';

/** Flows, steps and links as the API returns them, for the flow editor's tests. */

export const testFlowId = 7;

export function savedStep(id: number, overrides: Partial<Step> = {}): Step {
  return {
    id,
    flowId: testFlowId,
    type: 'action',
    serviceId: 'herald',
    operationKey: '/add-tag',
    inputFields: {},
    outputFields: null,
    coordinates: { x: 0, y: 0 },
    position: null,
    linkConditions: null,
    mustConfig: false,
    problem: null,
    peopleCount: 0,
    integrationId: String(testFlowId),
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

export const savedLink = (
  id: number,
  source: number,
  target: number,
  condition: string | null = null,
): Link => ({ id, flowId: testFlowId, source, target, condition });

export function savedFlow(steps: Step[], links: Link[] = [], overrides: Partial<Flow> = {}): Flow {
  return {
    id: testFlowId,
    name: 'Welcome',
    status: 'deactivated-user',
    archived: false,
    steps: Object.fromEntries(steps.map((step) => [String(step.id), step])),
    links,
    reentry: 'once',
    reentryDays: null,
    recipe: null,
    warnings: [],
    lastSaved: null,
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** A trigger (1) linked to a filter (2) whose "yes" branch goes to an action (3). */
export const threeStepFlow = () =>
  savedFlow(
    [
      savedStep(1, { type: 'trigger', operationKey: '/added-tag', coordinates: { x: 100, y: 0 } }),
      savedStep(2, {
        type: 'filter',
        operationKey: '/has-tag',
        coordinates: { x: 100, y: 170 },
        linkConditions: ['yes', 'no'],
      }),
      savedStep(3, { coordinates: { x: 100, y: 340 }, peopleCount: 4 }),
    ],
    [savedLink(11, 1, 2), savedLink(12, 2, 3, 'yes')],
  );
