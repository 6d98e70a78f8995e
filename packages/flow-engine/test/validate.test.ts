import { flowMessages, isOperationKey, operationKeys, stepTypeOf } from '@herald/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flows } from './arbitraries.ts';
import {
  catalogue,
  configProblem,
  stepLabel,
  toFlowDefinition,
  validateFlow,
  wouldCreateCycleWithoutWait,
} from '../src/index.ts';
import { flow } from './build.ts';

const send = { email: { id: 5 } };
const days = (amount: number) => ({ wait: { mode: 'duration', amount, unit: 'days' } });

describe('validateFlow', () => {
  it('accepts a complete flow', () => {
    const ok = flow(
      [
        [1, '/added-tag', { tag: 'trial' }],
        [2, '/has-tag', { tag: 'vip' }],
        [3, '/send', send],
        [4, '/end-flow'],
      ],
      [
        [1, 2],
        [2, 3, 'yes'],
        [2, 4, 'no'],
      ],
    );
    expect(validateFlow(ok)).toEqual([]);
  });

  it('asks for a trigger, one trigger, and a next step after it', () => {
    expect(validateFlow(flow([[2, '/send', send]], []))).toEqual([flowMessages.noTrigger]);
    expect(
      validateFlow(
        flow(
          [
            [1, '/event', { name: 'a' }],
            [2, '/event', { name: 'b' }],
            [3, '/send', send],
          ],
          [
            [1, 3],
            [2, 3],
          ],
        ),
      ),
    ).toEqual([flowMessages.oneTrigger]);
    expect(
      validateFlow(
        flow(
          [
            [1, '/event', { name: 'a' }],
            [3, '/send', send],
          ],
          [],
        ),
      ),
    ).toEqual([flowMessages.triggerHasNoNext]);
  });

  it('names an unconfigured step once per label', () => {
    const problems = validateFlow(
      flow(
        [
          [1, '/event', { name: 'a' }],
          [2, '/send', {}],
          [3, '/send', { email: { id: 'x' } }],
          [4, '/delay-v2', {}],
        ],
        [
          [1, 2],
          [2, 3],
          [3, 4],
        ],
      ),
    );
    expect(problems).toEqual([flowMessages.unconfigured('Send email'), flowMessages.unconfigured('Wait')]);
  });

  it('names every branch that leads nowhere', () => {
    const ab = {
      variants: [
        { name: 'A', weight: 50 },
        { name: 'B', weight: 50 },
      ],
    };
    const problems = validateFlow(
      flow(
        [
          [1, '/event', { name: 'a' }],
          [
            2,
            '/check-field',
            { condition: { type: 'field', field: 'plan', operator: 'equals', value: 'pro' } },
          ],
          [3, '/ab-test', ab],
          [4, '/send', send],
        ],
        [
          [1, 2],
          [2, 3, 'yes'],
          [3, 4, 'A'],
        ],
      ),
    );
    expect(problems).toContain(flowMessages.danglingBranch('A/B test', 'B'));
    expect(problems).toContain(flowMessages.danglingBranch('Check field', 'no'));
  });

  it('refuses a loop without a wait of at least a minute, accepts one with it', () => {
    const loop = (waitConfig: Record<string, unknown>) =>
      flow(
        [
          [1, '/event', { name: 'a' }],
          [2, '/send', send],
          [3, '/delay-v2', waitConfig],
        ],
        [
          [1, 2],
          [2, 3],
          [3, 2],
        ],
      );
    expect(validateFlow(loop(days(1)))).toEqual([]);
    expect(validateFlow(loop(days(0)))).toEqual([flowMessages.cycleWithoutWait]);
    expect(validateFlow(loop({ wait: { mode: 'weekday', days: [1], from: '09:00', to: '10:00' } }))).toEqual([
      flowMessages.cycleWithoutWait,
    ]);
    expect(validateFlow(loop({ wait: { mode: 'until', at: '2030-01-01T00:00:00Z' } }))).toEqual([
      flowMessages.cycleWithoutWait,
    ]);
  });

  it('ignores links to steps that are gone', () => {
    expect(validateFlow(flow([[1, '/event', { name: 'a' }]], [[1, 9]]))).toEqual([
      flowMessages.triggerHasNoNext,
    ]);
  });
});

describe('wouldCreateCycleWithoutWait', () => {
  const base = flow(
    [
      [1, '/event', { name: 'a' }],
      [2, '/send', send],
      [3, '/add-tag', { tag: 't' }],
      [4, '/delay-v2', days(2)],
      [5, '/delay-v2', {}],
    ],
    [
      [1, 2],
      [2, 3],
      [3, 4],
    ],
  );

  it('refuses closing a loop of actions, and a link to itself', () => {
    expect(wouldCreateCycleWithoutWait(base, { source: 3, target: 2 })).toBe(true);
    expect(wouldCreateCycleWithoutWait(base, { source: 2, target: 2 })).toBe(true);
  });

  it('allows a loop through a wait, a forward link, and a loop through a wait not yet set up', () => {
    expect(wouldCreateCycleWithoutWait(base, { source: 4, target: 2 })).toBe(false);
    expect(wouldCreateCycleWithoutWait(base, { source: 1, target: 3 })).toBe(false);
    expect(
      wouldCreateCycleWithoutWait(
        { ...base, links: [...base.links.slice(0, 2), { source: 3, target: 5, condition: null }] },
        { source: 5, target: 2 },
      ),
    ).toBe(false);
  });
});

describe('loops: properties', () => {
  it('random flows loop only through waits, and a new link is refused exactly when activation would refuse the flow', () => {
    fc.assert(
      fc.property(flows, fc.nat(), fc.nat(), (definition, i, j) => {
        expect(validateFlow(definition)).not.toContain(flowMessages.cycleWithoutWait);
        const ids = [...definition.steps.keys()];
        const link = { source: ids[i % ids.length]!, target: ids[j % ids.length]!, condition: 'new' };
        const withLink = { ...definition, links: [...definition.links, link] };
        expect(wouldCreateCycleWithoutWait(definition, link)).toBe(
          validateFlow(withLink).includes(flowMessages.cycleWithoutWait),
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe('catalogue and labels', () => {
  it('lists every operation once, with a label, a description, its type and a Tabler icon', () => {
    expect(catalogue.map((c) => c.operationKey)).toEqual([...operationKeys]);
    for (const entry of catalogue) {
      expect(entry.label.length).toBeGreaterThan(0);
      expect(entry.description).toMatch(/\.$/);
      expect(entry.icon).toMatch(/^Icon[A-Z]/);
      expect(entry.type).toBe(stepTypeOf(entry.operationKey));
    }
    expect(stepLabel('/send')).toBe('Send email');
    expect(stepLabel('/delay-v2')).toBe('Wait');
    expect(stepLabel('/entered-segment')).toBe('Entered segment');
  });

  it('gives each step’s own problem', () => {
    expect(configProblem('/send', {})).toBe(flowMessages.noEmail);
    expect(configProblem('/time', {})).toBe(flowMessages.noDateTime);
    expect(configProblem('/add-tag', {})).toBe(flowMessages.unconfigured('Add tag'));
    expect(configProblem('/add-tag', { tag: 'x' })).toBeNull();
  });
});

describe('toFlowDefinition', () => {
  it('decodes inputFields, drops unknown operations and links to missing steps', () => {
    const definition = toFlowDefinition({
      id: 3,
      version: 9,
      steps: [
        { id: 1, operationKey: '/event', inputFields: { properties: { name: { value: 'signed_up' } } } },
        {
          id: 2,
          operationKey: '/send',
          inputFields: { properties: { email: { properties: { id: { value: 12 } } } } },
        },
        { id: 3, operationKey: '/stripe-charge', inputFields: null },
      ],
      links: [
        { source: 1, target: 2, condition: null },
        { source: 2, target: 3, condition: null },
      ],
    });
    expect(isOperationKey('/stripe-charge')).toBe(false);
    expect([...definition.steps.values()]).toEqual([
      { id: 1, operationKey: '/event', config: { name: 'signed_up' } },
      { id: 2, operationKey: '/send', config: { email: { id: 12 } } },
    ]);
    expect(definition.links).toEqual([{ source: 1, target: 2, condition: null }]);
    expect(definition.version).toBe(9);
  });
});
