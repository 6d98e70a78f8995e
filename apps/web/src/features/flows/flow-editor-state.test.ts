import { encodeInputFields } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { savedStep, threeStepFlow } from './flow-editor.fixtures.ts';
import {
  activeEdit,
  appendLink,
  appendStep,
  dropLink,
  dropStep,
  duplicateOf,
  fromFlow,
  hasLink,
  linkDeletePath,
  localConditions,
  nameLink,
  nameStep,
  newEditorStep,
  newStepBody,
  placeStep,
  replaceStep,
  roundPoint,
  setStepSettings,
  settingsBody,
  stepDeletePath,
  stepIdOf,
  type NewStep,
} from './flow-editor-state.ts';

const tagAction: NewStep = {
  type: 'action',
  serviceId: 'herald',
  operationKey: '/add-tag',
  mustConfig: true,
};
const start = () => fromFlow(threeStepFlow());
const keys = (state: ReturnType<typeof start>) => state.steps.map((step) => step.key);
const pairs = (state: ReturnType<typeof start>) => state.links.map((link) => `${link.source}>${link.target}`);

describe('fromFlow', () => {
  it("keys steps by their ids and links by 'link-<id>', between step keys", () => {
    const state = start();
    expect(keys(state)).toEqual(['1', '2', '3']);
    expect(state.steps[2]).toMatchObject({
      key: '3',
      id: 3,
      type: 'action',
      peopleCount: 4,
      coordinates: { x: 100, y: 340 },
    });
    expect(state.links).toEqual([
      { key: 'link-11', id: 11, source: '1', target: '2', condition: null },
      { key: 'link-12', id: 12, source: '2', target: '3', condition: 'yes' },
    ]);
  });
});

describe('a new step', () => {
  it('offers yes and no when it is a filter, the variant names when it is an A/B test, nothing otherwise', () => {
    expect(localConditions({ ...tagAction, type: 'filter', operationKey: '/has-tag' })).toEqual([
      'yes',
      'no',
    ]);
    const variants = encodeInputFields({
      variants: [
        { name: 'A', weight: 70 },
        { name: 'B', weight: 30 },
      ],
    });
    expect(localConditions({ ...tagAction, operationKey: '/ab-test', inputFields: variants })).toEqual([
      'A',
      'B',
    ]);
    expect(localConditions({ ...tagAction, operationKey: '/ab-test' })).toBeNull();
    expect(localConditions(tagAction)).toBeNull();
  });

  it('is added without an id, people or settings, where it was dropped', () => {
    const state = appendStep(start(), newEditorStep('new-step-a', tagAction, { x: 10, y: 500 }));
    expect(keys(state)).toEqual(['1', '2', '3', 'new-step-a']);
    expect(state.steps[3]).toEqual({
      key: 'new-step-a',
      id: null,
      type: 'action',
      serviceId: 'herald',
      operationKey: '/add-tag',
      inputFields: {},
      outputFields: null,
      coordinates: { x: 10, y: 500 },
      linkConditions: null,
      mustConfig: true,
      problem: null,
      peopleCount: 0,
    });
  });

  it("takes the server's id as its key everywhere once created, and keeps its place on the canvas", () => {
    let state = appendStep(start(), newEditorStep('new-step-a', tagAction, { x: 10, y: 500 }));
    state = appendLink(state, {
      key: 'new-link-a',
      id: null,
      source: '3',
      target: 'new-step-a',
      condition: null,
    });
    state = appendLink(state, {
      key: 'new-link-b',
      id: null,
      source: 'new-step-a',
      target: '1',
      condition: null,
    });
    const named = nameStep(
      state,
      'new-step-a',
      savedStep(40, { coordinates: { x: 0, y: 0 }, mustConfig: true, problem: 'Choose a tag.' }),
    );
    expect(keys(named)).toEqual(['1', '2', '3', '40']);
    expect(named.steps[3]).toMatchObject({
      id: 40,
      coordinates: { x: 10, y: 500 },
      problem: 'Choose a tag.',
    });
    expect(pairs(named)).toEqual(['1>2', '2>3', '3>40', '40>1']);
    expect(keys(state)).toContain('new-step-a');
  });
});

describe('stepIdOf', () => {
  it('finds the id the server gave a temporary key, reads a saved key as its id, and knows nothing else', () => {
    const ids = new Map([['new-step-a', 40]]);
    expect(stepIdOf(ids, 'new-step-a')).toBe(40);
    expect(stepIdOf(ids, '12')).toBe(12);
    expect(stepIdOf(ids, 'new-step-b')).toBeNull();
  });
});

describe('changing a step', () => {
  it("takes the server's copy of a step but keeps its key and place", () => {
    const state = placeStep(start(), '3', { x: 300, y: 300 });
    const next = replaceStep(
      state,
      '3',
      savedStep(3, {
        coordinates: { x: 0, y: 0 },
        mustConfig: true,
        problem: 'Choose a tag.',
        peopleCount: 9,
      }),
    );
    expect(next.steps[2]).toMatchObject({
      key: '3',
      coordinates: { x: 300, y: 300 },
      mustConfig: true,
      problem: 'Choose a tag.',
      peopleCount: 9,
    });
    expect(next.steps.slice(0, 2)).toEqual(state.steps.slice(0, 2));
  });

  it('sets the settings of one step only', () => {
    const inputFields = encodeInputFields({ tag: 'vip' });
    const state = setStepSettings(start(), '3', inputFields);
    expect(state.steps.map((step) => step.inputFields)).toEqual([{}, {}, inputFields]);
  });

  it('moves a step to whole pixels', () => {
    expect(roundPoint({ x: 10.4, y: -20.6 })).toEqual({ x: 10, y: -21 });
    const state = placeStep(start(), '2', { x: 5, y: 6 });
    expect(state.steps.map((step) => step.coordinates)).toEqual([
      { x: 100, y: 0 },
      { x: 5, y: 6 },
      { x: 100, y: 340 },
    ]);
  });

  it('deletes a step with every link to or from it, and nothing else', () => {
    const state = dropStep(start(), '2');
    expect(keys(state)).toEqual(['1', '3']);
    expect(state.links).toEqual([]);
    const last = dropStep(start(), '3');
    expect(pairs(last)).toEqual(['1>2']);
  });

  it('duplicates a step without its id, counts or links, 20 px right and down, with its settings', () => {
    const state = setStepSettings(start(), '3', encodeInputFields({ tag: 'vip' }));
    const copy = duplicateOf(state.steps[2]!);
    expect(copy).toEqual({
      step: {
        type: 'action',
        serviceId: 'herald',
        operationKey: '/add-tag',
        mustConfig: false,
        inputFields: encodeInputFields({ tag: 'vip' }),
      },
      coordinates: { x: 120, y: 360 },
    });
  });
});

describe('links', () => {
  it('knows whether two steps are already linked, in that direction', () => {
    expect(hasLink(start(), '1', '2')).toBe(true);
    expect(hasLink(start(), '2', '1')).toBe(false);
    expect(hasLink(start(), '1', '3')).toBe(false);
  });

  it("adds a link, takes the server's id for it, and deletes it", () => {
    const added = appendLink(start(), {
      key: 'new-link-a',
      id: null,
      source: '1',
      target: '3',
      condition: null,
    });
    const named = nameLink(added, 'new-link-a', 50);
    expect(named.links[2]).toEqual({ key: 'link-50', id: 50, source: '1', target: '3', condition: null });
    expect(dropLink(named, 'link-50').links.map((link) => link.key)).toEqual(['link-11', 'link-12']);
    expect(named.steps).toBe(added.steps);
  });
});

describe('what is sent', () => {
  it('creates a step under its temporary id, with empty settings unless it has some', () => {
    expect(newStepBody(7, 'new-step-a', tagAction, { x: 1, y: 2 })).toEqual({
      flowId: 7,
      tempId: 'new-step-a',
      serviceId: 'herald',
      operationKey: '/add-tag',
      inputFields: {},
      coordinates: { x: 1, y: 2 },
    });
    const inputFields = encodeInputFields({ tag: 'vip' });
    expect(newStepBody(7, 'new-step-a', { ...tagAction, inputFields }, { x: 1, y: 2 }).inputFields).toBe(
      inputFields,
    );
  });

  it('says a change of an active flow was confirmed, and only then', () => {
    const inputFields = encodeInputFields({ tag: 'vip' });
    expect(settingsBody(inputFields, 'active')).toEqual({ inputFields, confirmActiveEdit: true });
    expect(settingsBody(inputFields, 'deactivated')).toEqual({ inputFields });
    expect(activeEdit(undefined)).toEqual({});
    expect(stepDeletePath(3, 'active')).toBe('/steps/3?confirmActiveEdit=true');
    expect(stepDeletePath(3, 'deactivated-user')).toBe('/steps/3');
  });

  it('deletes a saved link by its id, a new one by its two steps, and nothing while a step has no id', () => {
    const idOf = (key: string) => stepIdOf(new Map([['new-step-a', 40]]), key);
    expect(linkDeletePath({ key: 'link-12', id: 12, source: '2', target: '3', condition: 'yes' }, idOf)).toBe(
      '/links/12',
    );
    expect(
      linkDeletePath(
        { key: 'new-link-a', id: null, source: '3', target: 'new-step-a', condition: null },
        idOf,
      ),
    ).toBe('/links/3/40');
    expect(
      linkDeletePath(
        { key: 'new-link-b', id: null, source: '3', target: 'new-step-b', condition: null },
        idOf,
      ),
    ).toBeNull();
  });
});
