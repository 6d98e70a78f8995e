import {
  flowLimits,
  type Flow,
  type FlowStatus,
  type InputFields,
  type Step,
  type StepType,
} from '@herald/contracts';

/**
 * The flow editor's copy of steps and links as plain data, and every change made to it (docs/flows.md, "The editor
 * keeps its own copy and one save queue"): `useFlowEditor` applies these to its state and sends what they describe.
 */

export type Point = { x: number; y: number };

/** A step on the canvas: `key` is its node id, the server id as text once saved, a temporary id before. */
export interface EditorStep {
  key: string;
  id: number | null;
  type: StepType;
  serviceId: string;
  operationKey: string;
  inputFields: InputFields;
  outputFields: Record<string, unknown> | null;
  coordinates: Point;
  linkConditions: string[] | null;
  mustConfig: boolean;
  problem: string | null;
  peopleCount: number;
}

export interface EditorLink {
  key: string;
  id: number | null;
  source: string;
  target: string;
  condition: string | null;
}

export interface EditorState {
  steps: EditorStep[];
  links: EditorLink[];
}

/** What a new step starts from: its catalogue entry's identity and, for a copy, the original's settings. */
export interface NewStep {
  type: StepType;
  serviceId: string;
  operationKey: string;
  mustConfig: boolean;
  inputFields?: InputFields;
}

export const stepKey = (id: number) => String(id);
export const linkKey = (id: number) => `link-${id}`;

export function fromStep(step: Step, key = stepKey(step.id)): EditorStep {
  return {
    key,
    id: step.id,
    type: step.type,
    serviceId: step.serviceId,
    operationKey: step.operationKey,
    inputFields: step.inputFields,
    outputFields: step.outputFields,
    coordinates: step.coordinates,
    linkConditions: step.linkConditions,
    mustConfig: step.mustConfig,
    problem: step.problem,
    peopleCount: step.peopleCount,
  };
}

/** The server's flow as the editor's copy: steps keyed by their ids, links by `link-<id>`. */
export function fromFlow(flow: Flow): EditorState {
  return {
    steps: Object.values(flow.steps).map((step) => fromStep(step)),
    links: flow.links.map((link) => ({
      key: linkKey(link.id),
      id: link.id,
      source: stepKey(link.source),
      target: stepKey(link.target),
      condition: link.condition,
    })),
  };
}

/** Link conditions a new step offers before the server says: yes/no for filters, the variant names of an A/B test. */
export function localConditions(step: NewStep): string[] | null {
  if (step.type === 'filter') return ['yes', 'no'];
  if (step.operationKey === '/ab-test') {
    const variants = step.inputFields?.properties?.variants?.value;
    return Array.isArray(variants) ? variants.map((v: { name?: unknown }) => String(v.name)) : null;
  }
  return null;
}

/** The server id of a step key: the one the server gave a temporary key, else the key itself when it is an id. */
export function stepIdOf(ids: ReadonlyMap<string, number>, key: string): number | null {
  return ids.get(key) ?? (/^\d+$/.test(key) ? Number(key) : null);
}

// ---------------------------------------------------------------------------------------------------------------
// Steps.

/** A new step as shown before the server has it: no id, no people, the link conditions known locally. */
export function newEditorStep(key: string, step: NewStep, coordinates: Point): EditorStep {
  return {
    key,
    id: null,
    type: step.type,
    serviceId: step.serviceId,
    operationKey: step.operationKey,
    inputFields: step.inputFields ?? {},
    outputFields: null,
    coordinates,
    linkConditions: localConditions(step),
    mustConfig: step.mustConfig,
    problem: null,
    peopleCount: 0,
  };
}

export const appendStep = (state: EditorState, step: EditorStep): EditorState => ({
  ...state,
  steps: [...state.steps, step],
});

/** The server created the step with key `key`: it takes the server's id as its key, everywhere, and keeps its place. */
export function nameStep(state: EditorState, key: string, saved: Step): EditorState {
  const swap = (k: string) => (k === key ? stepKey(saved.id) : k);
  return {
    steps: state.steps.map((one) =>
      one.key === key ? { ...fromStep(saved), coordinates: one.coordinates } : one,
    ),
    links: state.links.map((link) => ({ ...link, source: swap(link.source), target: swap(link.target) })),
  };
}

/** The server's copy of a step (problem, set-up state, link conditions), in the place the canvas shows it. */
export const replaceStep = (state: EditorState, key: string, step: Step): EditorState => ({
  ...state,
  steps: state.steps.map((one) =>
    one.key === key ? { ...fromStep(step, key), coordinates: one.coordinates } : one,
  ),
});

export const setStepSettings = (state: EditorState, key: string, inputFields: InputFields): EditorState => ({
  ...state,
  steps: state.steps.map((one) => (one.key === key ? { ...one, inputFields } : one)),
});

/** Canvas places are saved in whole pixels. */
export const roundPoint = (point: Point): Point => ({ x: Math.round(point.x), y: Math.round(point.y) });

export const placeStep = (state: EditorState, key: string, coordinates: Point): EditorState => ({
  ...state,
  steps: state.steps.map((one) => (one.key === key ? { ...one, coordinates } : one)),
});

/** Without the step and every link to or from it. */
export const dropStep = (state: EditorState, key: string): EditorState => ({
  steps: state.steps.filter((one) => one.key !== key),
  links: state.links.filter((link) => link.source !== key && link.target !== key),
});

/** A copy of a step without its id, counts and links, `flowLimits.duplicateOffset` px right and down (docs/flows.md). */
export function duplicateOf(step: EditorStep): { step: NewStep; coordinates: Point } {
  const { x, y } = step.coordinates;
  return {
    step: {
      type: step.type,
      serviceId: step.serviceId,
      operationKey: step.operationKey,
      mustConfig: step.mustConfig,
      inputFields: step.inputFields,
    },
    coordinates: { x: x + flowLimits.duplicateOffset, y: y + flowLimits.duplicateOffset },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Links.

export const hasLink = (state: EditorState, source: string, target: string) =>
  state.links.some((link) => link.source === source && link.target === target);

export const appendLink = (state: EditorState, link: EditorLink): EditorState => ({
  ...state,
  links: [...state.links, link],
});

/** The server created the link with key `key`: it takes the server's id. */
export const nameLink = (state: EditorState, key: string, id: number): EditorState => ({
  ...state,
  links: state.links.map((link) => (link.key === key ? { ...link, key: linkKey(id), id } : link)),
});

export const dropLink = (state: EditorState, key: string): EditorState => ({
  ...state,
  links: state.links.filter((link) => link.key !== key),
});

// ---------------------------------------------------------------------------------------------------------------
// What is sent.

/** POST /steps/: the new step under its temporary id, so the answer can be matched to it. */
export function newStepBody(flowId: number, key: string, step: NewStep, coordinates: Point) {
  return {
    flowId,
    tempId: key,
    serviceId: step.serviceId,
    operationKey: step.operationKey,
    inputFields: step.inputFields ?? {},
    coordinates,
  };
}

/** A change of an active flow says it was confirmed (docs/flows.md, "Active-flow edits"). */
export const activeEdit = (status: FlowStatus | undefined) =>
  status === 'active' ? { confirmActiveEdit: true as const } : {};

/** PATCH /steps/{id} of new settings. */
export const settingsBody = (inputFields: InputFields, status: FlowStatus | undefined) => ({
  inputFields,
  ...activeEdit(status),
});

export const stepDeletePath = (id: number, status: FlowStatus | undefined) =>
  `/steps/${id}${status === 'active' ? '?confirmActiveEdit=true' : ''}`;

/** DELETE of a link: by its id once saved, else by its two steps once both exist; null when there is nothing to delete. */
export function linkDeletePath(link: EditorLink, idOf: (key: string) => number | null): string | null {
  if (link.id !== null) return `/links/${link.id}`;
  const source = idOf(link.source);
  const target = idOf(link.target);
  return source !== null && target !== null ? `/links/${source}/${target}` : null;
}
