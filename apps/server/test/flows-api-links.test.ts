import { encodeInputFields, flowMessages, type Flow } from '@herald/contracts';
import { toFlowDefinition, validateFlow } from '@herald/flow-engine';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, registerUser, type Client, type TestContext } from './helpers.ts';

let ctx: TestContext;
let client: Client;
beforeAll(async () => {
  ctx = await createTestContext();
  client = (await registerUser(ctx.app)).client;
});
afterAll(() => ctx.close());

/** Steps a generated flow is made of: plain actions, a wait that breaks loops, a wait that does not, and a filter. */
const kinds = {
  tag: { operationKey: '/add-tag', config: { tag: 'a' } },
  wait: { operationKey: '/delay-v2', config: { wait: { mode: 'duration', amount: 1, unit: 'days' } } },
  waitZero: { operationKey: '/delay-v2', config: { wait: { mode: 'duration', amount: 0, unit: 'minutes' } } },
  filter: { operationKey: '/has-tag', config: { tag: 'b' } },
} as const;
type Kind = keyof typeof kinds;

const scenario = fc.record({
  steps: fc.array(fc.constantFrom<Kind>('tag', 'tag', 'wait', 'waitZero', 'filter'), {
    minLength: 2,
    maxLength: 6,
  }),
  attempts: fc.array(
    fc.record({
      source: fc.nat(5),
      target: fc.nat(5),
      condition: fc.constantFrom(null, 'yes', 'no', 'maybe'),
    }),
    { minLength: 1, maxLength: 14 },
  ),
});

describe('links drawn in any order', () => {
  it('are answered 201, 409 or 422 (never 5xx), and the stored flow never loops without a wait nor doubles a branch', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ steps, attempts }) => {
        const flow = (await client.post('/v1/integrations', { name: 'Generated' })).body.integration as Flow;
        const ids: number[] = [];
        for (const kind of steps) {
          const { operationKey, config } = kinds[kind];
          const res = await client.post('/v1/steps/', {
            flowId: flow.id,
            operationKey,
            inputFields: encodeInputFields(config),
          });
          expect(res.status).toBe(201);
          ids.push(res.body.step.id as number);
        }
        for (const attempt of attempts) {
          const source = ids[attempt.source % ids.length]!;
          const target = ids[attempt.target % ids.length]!;
          const res = await client.post('/v1/links/', { source, target, condition: attempt.condition });
          expect([201, 409, 422], JSON.stringify(res.body)).toContain(res.status);
        }
        const stored = (await client.get(`/v1/integrations/${flow.id}`)).body.integration as Flow;
        const definition = toFlowDefinition({
          id: stored.id,
          version: 1,
          steps: Object.values(stored.steps).map((s) => ({
            id: s.id,
            operationKey: s.operationKey,
            inputFields: s.inputFields,
          })),
          links: stored.links,
        });
        expect(validateFlow(definition)).not.toContain(flowMessages.cycleWithoutWait);
        const branches = stored.links.map((l) => `${l.source}:${l.condition ?? ''}`);
        expect(new Set(branches).size).toBe(branches.length);
        for (const l of stored.links) {
          const conditions = stored.steps[String(l.source)]!.linkConditions;
          if (conditions === null) expect(l.condition).toBeNull();
          else expect(conditions).toContain(l.condition);
        }
      }),
      { numRuns: 30 },
    );
  }, 120_000);
});
