import type { ConditionNode, InputField, InputFields } from '@herald/contracts';

/**
 * Pure parts of copying a flow into another account: what its steps' settings and its segments' conditions point
 * at, the same trees with those ids and field names replaced, and free names for what is created in the target.
 */

/** How ids and names of the source account become those of the target; an unknown one maps to itself. */
export interface CopyMaps {
  email: (id: number) => number;
  segment: (id: number) => number;
  field: (name: string) => string;
  flow: (id: number) => number;
}

export const identityMaps: CopyMaps = {
  email: (id) => id,
  segment: (id) => id,
  field: (name) => name,
  flow: (id) => id,
};

const segmentSteps = new Set(['/entered-segment', '/left-segment', '/in-segment', '/time']);
const emailSteps = new Set(['/send', '/email-trigger']);
const fieldSteps = new Set(['/dateFieldTrigger', '/annualTrigger', '/change-field']);

const isId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value > 0;

/** The node at a path of property names, or undefined. */
function nodeAt(fields: InputFields, path: readonly string[]): InputField | undefined {
  let node: InputField | undefined = fields;
  for (const key of path) {
    const props: Record<string, InputField> | undefined = node?.properties;
    if (!props || !Object.hasOwn(props, key)) return undefined;
    node = props[key];
  }
  return node;
}

/** Replace the value at a path (when there is one) by what `change` makes of it. */
function changeValue(
  fields: InputFields,
  path: readonly string[],
  change: (value: unknown) => unknown,
): void {
  const node = nodeAt(fields, path);
  if (node && node.value !== undefined) node.value = change(node.value);
}

const mapId = (map: (id: number) => number) => (value: unknown) => (isId(value) ? map(value) : value);
const mapName = (map: (name: string) => string) => (value: unknown) =>
  typeof value === 'string' && value ? map(value) : value;

/**
 * A step's settings with the emails, segments, fields (and, in an email-activity filter, the copied flow itself)
 * replaced through `maps`. Everything else in the tree, known or not, is kept as it is.
 */
export function remapInputFields(
  operationKey: string,
  inputFields: InputFields,
  maps: CopyMaps,
): InputFields {
  const copy = structuredClone(inputFields) as InputFields;
  if (segmentSteps.has(operationKey)) changeValue(copy, ['segment', 'id'], mapId(maps.segment));
  if (emailSteps.has(operationKey)) changeValue(copy, ['email', 'id'], mapId(maps.email));
  if (fieldSteps.has(operationKey)) changeValue(copy, ['field'], mapName(maps.field));
  if (operationKey === '/check-field') changeValue(copy, ['condition', 'field'], mapName(maps.field));
  if (operationKey === '/check-email-activity') {
    const type = nodeAt(copy, ['condition', 'subject', 'type'])?.value;
    if (type === 'email') changeValue(copy, ['condition', 'subject', 'id'], mapId(maps.email));
    if (type === 'flow') changeValue(copy, ['condition', 'subject', 'id'], mapId(maps.flow));
  }
  return copy;
}

/** What a segment's conditions point at: custom or first-class fields, other segments and emails. */
export type ConditionReferences = { fields: string[]; segments: number[]; emails: number[] };

export function conditionReferences(nodes: readonly ConditionNode[]): ConditionReferences {
  const refs: ConditionReferences = { fields: [], segments: [], emails: [] };
  const walk = (list: readonly ConditionNode[]) => {
    for (const node of list) {
      if (node.type === 'group') walk(node.conditions);
      else if (node.type === 'field') refs.fields.push(node.field);
      else if (node.type === 'segment') refs.segments.push(node.segmentId);
      else if (node.type === 'emailActivity' && node.subject.type === 'email')
        refs.emails.push(node.subject.id);
    }
  };
  walk(nodes);
  return refs;
}

/** The same conditions with fields, segments, emails and the copied flow replaced through `maps`. */
export function remapConditions(nodes: readonly ConditionNode[], maps: CopyMaps): ConditionNode[] {
  return nodes.map((node): ConditionNode => {
    switch (node.type) {
      case 'group':
        return { ...node, conditions: remapConditions(node.conditions, maps) };
      case 'field':
        return { ...node, field: maps.field(node.field) };
      case 'segment':
        return { ...node, segmentId: maps.segment(node.segmentId) };
      case 'emailActivity':
        if (node.subject.type === 'email')
          return { ...node, subject: { type: 'email', id: maps.email(node.subject.id) } };
        if (node.subject.type === 'flow')
          return { ...node, subject: { type: 'flow', id: maps.flow(node.subject.id) } };
        return { ...node };
      default:
        return { ...node };
    }
  });
}

const plainTag = /\bperson\.([A-Za-z_][A-Za-z0-9_]*)/g;
const quotedTag = /\bperson\[\s*"((?:[^"\\]|\\.)*)"\s*\]/g;

/** Person fields named by merge tags (`{{ person.plan }}`, `{{ person["Plan name"] }}`) in an email's texts. */
export function mergeTagFields(...texts: string[]): string[] {
  const names = new Set<string>();
  for (const text of texts) {
    for (const match of text.matchAll(plainTag)) names.add(match[1]!);
    for (const match of text.matchAll(quotedTag)) {
      try {
        names.add(JSON.parse(`"${match[1]!}"`) as string);
      } catch {
        // a tag that is not valid JSON text names no field the copy can find
      }
    }
  }
  return [...names];
}

/**
 * A name for a copied email or segment that no item of the target has: the name itself, else "{name} (copy)",
 * else "{name} (2)", "{name} (3)", … — cut so the result stays within `max` characters.
 */
export function freeName(name: string, taken: ReadonlySet<string>, max = 200): string {
  const fit = (suffix: string) => `${name.slice(0, Math.max(0, max - suffix.length))}${suffix}`;
  const base = fit('');
  if (!taken.has(base)) return base;
  const copy = fit(' (copy)');
  if (!taken.has(copy)) return copy;
  for (let n = 2; ; n++) {
    const candidate = fit(` (${n})`);
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * A key for a custom field whose key the target already uses with another type: "{key}_2", "{key}_3", … — the
 * first whose lower case no field of the target (`takenLower`, in lower case) has, within `max` characters.
 */
export function freeFieldKey(key: string, takenLower: ReadonlySet<string>, max = 100): string {
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const candidate = `${key.slice(0, Math.max(0, max - suffix.length))}${suffix}`;
    if (!takenLower.has(candidate.toLowerCase())) return candidate;
  }
}
