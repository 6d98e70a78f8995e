import {
  decodeInputFields,
  encodeInputFields,
  operationKeys,
  type ConditionNode,
  type InputFields,
} from '@herald/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planCopy, planCounts, type SourceResources } from '../src/features/flows/flows.copy-plan.ts';
import {
  conditionReferences,
  freeFieldKey,
  freeName,
  identityMaps,
  mergeTagFields,
  remapConditions,
  remapInputFields,
  type CopyMaps,
} from '../src/features/flows/flows.copy-remap.ts';
import { stepReferences } from '../src/features/flows/steps.shape.ts';

/** Maps that move every id by a fixed amount and suffix every field, so a missed or doubled mapping shows. */
const shifted: CopyMaps = {
  email: (id) => id + 1000,
  segment: (id) => id + 2000,
  field: (name) => `${name}~`,
  flow: (id) => id + 3000,
};

const id = fc.integer({ min: 1, max: 10_000 });
const fieldName = fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,8}$/);
const anything = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.boolean(), fc.constant(null));
const subject = fc.oneof(
  fc.record({ type: fc.constant('email'), id }),
  fc.record({ type: fc.constant('flow'), id }),
  fc.record({ type: fc.constant('broadcast'), id }),
  fc.record({ type: fc.constant('any') }),
);
/** Settings of any operation, with the keys the real ones use and some others. */
const config = fc.record(
  {
    segment: fc.record({ id }),
    email: fc.record({ id }),
    field: fieldName,
    condition: fc.record(
      {
        type: fc.constantFrom('field', 'emailActivity'),
        field: fieldName,
        subject,
        operator: fc.constant('equals'),
      },
      { requiredKeys: [] },
    ),
    tag: fc.string({ maxLength: 8 }),
    extra: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), anything, { maxKeys: 3 }),
  },
  { requiredKeys: [] },
);

const condition: fc.Arbitrary<ConditionNode> = fc.letrec<{ node: ConditionNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({
      type: fc.constant('field' as const),
      field: fieldName,
      operator: fc.constant('isSet' as const),
    }),
    fc.record({
      type: fc.constant('segment' as const),
      operator: fc.constantFrom('in' as const, 'notIn' as const),
      segmentId: id,
    }),
    fc.record({
      type: fc.constant('tag' as const),
      operator: fc.constant('has' as const),
      tag: fc.constant('x'),
    }),
    fc.record({
      type: fc.constant('emailActivity' as const),
      activity: fc.constant('opened' as const),
      performed: fc.boolean(),
      subject: subject as fc.Arbitrary<never>,
      window: fc.constant({ type: 'ever' as const }),
    }),
    fc.record({
      type: fc.constant('group' as const),
      operator: fc.constantFrom('and' as const, 'or' as const),
      conditions: fc.array(tie('node'), { maxLength: 3 }),
    }),
  ),
})).node;

describe('remapping a step’s settings', () => {
  it('changes nothing with identity maps, and never the original tree', () => {
    fc.assert(
      fc.property(fc.constantFrom(...operationKeys), config, (key, cfg) => {
        const fields = encodeInputFields(cfg);
        const before = structuredClone(fields);
        expect(remapInputFields(key, fields, identityMaps)).toEqual(fields);
        remapInputFields(key, fields, shifted);
        expect(fields).toEqual(before);
      }),
    );
  });

  it('maps exactly the references the step has, and leaves every other setting as it was', () => {
    fc.assert(
      fc.property(fc.constantFrom(...operationKeys), config, (key, cfg) => {
        const fields = encodeInputFields(cfg);
        const out = decodeInputFields(remapInputFields(key, fields, shifted));
        const before = stepReferences(key, cfg);
        const after = stepReferences(key, out);
        expect(after.emails).toEqual(before.emails.map(shifted.email));
        expect(after.segments).toEqual(before.segments.map(shifted.segment));
        expect(after.fields).toEqual(before.fields.map(shifted.field));
        expect(out.extra).toEqual(decodeInputFields(fields).extra);
        expect(out.tag).toEqual(decodeInputFields(fields).tag);
      }),
    );
  });

  it('points an email-activity filter about the copied flow at the copy', () => {
    const fields = encodeInputFields({
      condition: { type: 'emailActivity', activity: 'opened', subject: { type: 'flow', id: 7 } },
    });
    expect(decodeInputFields(remapInputFields('/check-email-activity', fields, shifted))).toMatchObject({
      condition: { subject: { type: 'flow', id: 3007 } },
    });
  });

  it('keeps an empty or odd tree', () => {
    expect(remapInputFields('/send', {}, shifted)).toEqual({});
    const odd = { properties: { email: { value: 'not an object' } } } as InputFields;
    expect(remapInputFields('/send', odd, shifted)).toEqual(odd);
  });
});

describe('remapping segment conditions', () => {
  it('keeps the tree’s shape and maps every reference once', () => {
    fc.assert(
      fc.property(fc.array(condition, { maxLength: 4 }), (nodes) => {
        const out = remapConditions(nodes, shifted);
        const before = conditionReferences(nodes);
        const after = conditionReferences(out);
        expect(after.fields).toEqual(before.fields.map(shifted.field));
        expect(after.segments).toEqual(before.segments.map(shifted.segment));
        expect(after.emails).toEqual(before.emails.map(shifted.email));
        expect(remapConditions(nodes, identityMaps)).toEqual(nodes);
        expect(JSON.stringify(out).length).toBeGreaterThanOrEqual(JSON.stringify(nodes).length);
      }),
    );
  });
});

describe('names and keys in the target', () => {
  it('finds a name no item has, within the length limit, distinct for each new item', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 30 }),
        fc.array(fc.string({ maxLength: 40 }), { maxLength: 10 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 12, max: 200 }),
        (name, others, copies, max) => {
          const taken = new Set([...others, name.slice(0, max)]);
          for (let i = 0; i < copies; i++) {
            const free = freeName(name, taken, max);
            expect(taken.has(free)).toBe(false);
            expect(free.length).toBeLessThanOrEqual(max);
            taken.add(free);
          }
        },
      ),
    );
    expect(freeName('Welcome', new Set(['Welcome']))).toBe('Welcome (copy)');
    expect(freeName('Welcome', new Set(['Welcome', 'Welcome (copy)']))).toBe('Welcome (2)');
    expect(freeName('Welcome', new Set())).toBe('Welcome');
  });

  it('finds a field key free in any letter case', () => {
    fc.assert(
      fc.property(fieldName, fc.array(fieldName, { maxLength: 8 }), (key, others) => {
        const taken = new Set([key, ...others].map((k) => k.toLowerCase()));
        const free = freeFieldKey(key, taken);
        expect(taken.has(free.toLowerCase())).toBe(false);
        expect(free.startsWith(key)).toBe(true);
      }),
    );
    expect(freeFieldKey('score', new Set(['score', 'score_2']))).toBe('score_3');
  });

  it('reads person fields from merge tags', () => {
    expect(
      mergeTagFields(
        'Hi {{ person.firstName | default: "x" }}',
        '{{ person["Plan name"] }} {{person.plan}}',
        '{{ account.name }}',
      ).sort(),
    ).toEqual(['Plan name', 'firstName', 'plan']);
    fc.assert(
      fc.property(fieldName, (name) => {
        expect(mergeTagFields(`<p>{{ person.${name} }}</p>`)).toEqual([name]);
      }),
    );
  });
});

describe('planning a copy', () => {
  const source = (fields: SourceResources['fields']): SourceResources => ({
    emails: [
      { id: 1, name: 'Welcome' },
      { id: 2, name: 'Welcome' },
    ],
    segments: [
      { id: 5, name: 'All', autoType: 'allPeople' },
      { id: 6, name: 'Fans', autoType: null },
    ],
    fields,
  });

  it('reuses a field of the same key and type, renames one of another type, keeps merge-tag fields as written', () => {
    const plan = planCopy(
      source([
        { name: 'plan', type: 'string', title: 'Plan', mergeTagOnly: false },
        { name: 'score', type: 'number', title: 'Score', mergeTagOnly: false },
        { name: 'nick', type: 'number', title: 'Nick', mergeTagOnly: true },
        { name: 'city', type: 'string', title: 'City', mergeTagOnly: false },
      ]),
      {
        fields: [
          { name: 'PLAN', type: 'string', title: 'Plan' },
          { name: 'score', type: 'string', title: 'Score' },
          { name: 'nick', type: 'string', title: 'Nick' },
        ],
        emailNames: ['Welcome'],
        segmentNames: [],
        automatic: new Map([['allPeople', 99]]),
      },
    );
    expect(plan.fields.map((f) => [f.key, f.create, f.title])).toEqual([
      ['PLAN', false, 'Plan'],
      ['score_2', true, 'Score (copy)'],
      ['nick', false, 'Nick'],
      ['city', true, 'City'],
    ]);
    expect(plan.emails.map((e) => e.name)).toEqual(['Welcome (copy)', 'Welcome (2)']);
    expect(plan.segments).toEqual([
      { source: expect.objectContaining({ id: 5 }), create: false, targetId: 99 },
      { source: expect.objectContaining({ id: 6 }), create: true, name: 'Fans' },
    ]);
    expect(planCounts(plan)).toEqual({ emails: 2, segments: 1, fields: 2 });
  });

  it('never plans two new fields with one key, nor a key the target has', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fieldName, { maxLength: 8, selector: (k) => k.toLowerCase() }),
        fc.array(fc.record({ name: fieldName, type: fc.constantFrom('string', 'number') }), { maxLength: 8 }),
        (keys, existing) => {
          const plan = planCopy(
            {
              emails: [],
              segments: [],
              fields: keys.map((name, i) => ({
                name,
                type: i % 2 ? 'number' : 'date',
                title: name,
                mergeTagOnly: false,
              })),
            },
            {
              fields: existing.map((f) => ({ ...f, title: f.name })),
              emailNames: [],
              segmentNames: [],
              automatic: new Map(),
            },
          );
          const created = plan.fields.filter((f) => f.create).map((f) => f.key.toLowerCase());
          expect(new Set(created).size).toBe(created.length);
          for (const key of created) expect(existing.some((f) => f.name.toLowerCase() === key)).toBe(false);
        },
      ),
    );
  });
});
