import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CreateFlowBody,
  CreateLinkBody,
  CreateStepBody,
  UpdateSegmentBody,
  UpdateStepBody,
  entityBody,
  flowBodyMessages,
  stepTypeProblem,
} from '../src/index.ts';

const messagesOf = (result: { success: boolean; error?: z.ZodError }) =>
  result.error?.issues.map((issue) => issue.message) ?? [];

describe('entityBody', () => {
  const Body = entityBody({ name: z.string(), count: z.number().optional() }, ['id', 'createdAt']);

  it('accepts the ignored fields with any value and drops them', () => {
    expect(Body.parse({ name: 'a', id: 'anything', createdAt: { nested: [1] } })).toEqual({ name: 'a' });
    expect(Body.parse({ name: 'a', count: 2, id: null })).toEqual({ name: 'a', count: 2 });
  });

  it('still checks the writable fields and refuses keys outside the entity', () => {
    expect(Body.safeParse({ name: 1 }).success).toBe(false);
    expect(messagesOf(Body.safeParse({ name: 'a', colour: 'red' }))).toEqual(['Unrecognized key: "colour"']);
  });

  it('refuses a field declared both written and ignored', () => {
    expect(() => entityBody({ id: z.number() }, ['id'])).toThrow(/both written and ignored/);
  });

  it('renders as a JSON Schema with the ignored fields described and no others allowed', () => {
    const schema = z.toJSONSchema(Body, { io: 'input' }) as {
      properties: Record<string, { description?: string }>;
      additionalProperties: boolean;
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.id?.description).toMatch(/ignored/);
  });
});

describe('step and link bodies', () => {
  it('take the flow from integrationId when flowId is absent, and refuse the two disagreeing', () => {
    expect(CreateStepBody.parse({ integrationId: '7', operationKey: '/send' }).flowId).toBe(7);
    expect(CreateStepBody.parse({ integrationId: 7, flowId: 7, operationKey: '/send' })).not.toHaveProperty(
      'integrationId',
    );
    expect(CreateStepBody.parse({ integrationId: null, flowId: 3, operationKey: '/send' }).flowId).toBe(3);
    expect(
      messagesOf(CreateStepBody.safeParse({ integrationId: 8, flowId: 7, operationKey: '/send' })),
    ).toEqual([flowBodyMessages.integrationIdDisagrees(8, 7)]);
    expect(messagesOf(CreateStepBody.safeParse({ operationKey: '/send' }))).toEqual([
      flowBodyMessages.flowIdNeeded,
    ]);
    expect(UpdateStepBody.parse({ integrationId: '9' })).toEqual({ flowId: 9 });
    expect(UpdateStepBody.parse({ tempId: 'tmp', metrics: {}, mustConfig: true })).toEqual({
      flowId: undefined,
    });
  });

  it('name the operation and its type when the type contradicts it', () => {
    expect(stepTypeProblem('/send', 'filter')).toBe(
      "Step type 'filter' does not match the operation /send, which is an action.",
    );
    expect(stepTypeProblem('/has-tag', 'trigger')).toBe(
      "Step type 'trigger' does not match the operation /has-tag, which is a filter.",
    );
    expect(stepTypeProblem('/send', 'action')).toBeNull();
    expect(stepTypeProblem('/send', undefined)).toBeNull();
    expect(stepTypeProblem('/no-such-step', 'action')).toBeNull();
  });

  it('accept the link entity whole', () => {
    expect(
      CreateLinkBody.parse({
        id: 'tmp',
        source: 1,
        target: 2,
        beingCreated: true,
        linkPopupCoordinates: { x: 1, y: 2 },
      }),
    ).toEqual({ source: 1, target: 2 });
    expect(CreateLinkBody.safeParse({ source: 1, target: 2, label: 'x' }).success).toBe(false);
  });
});

describe('flow and segment bodies', () => {
  it('a new flow ignores status and archived and must come without steps and links', () => {
    expect(
      CreateFlowBody.parse({
        id: 4,
        name: 'A',
        status: 'active',
        archived: true,
        steps: {},
        links: [],
        lastSaved: null,
      }),
    ).toEqual({ name: 'A', steps: {}, links: [] });
    expect(messagesOf(CreateFlowBody.safeParse({ steps: { tmp: {} } }))).toEqual([
      flowBodyMessages.newFlowHasNoSteps,
    ]);
    expect(messagesOf(CreateFlowBody.safeParse({ links: [{ source: 1, target: 2 }] }))).toEqual([
      flowBodyMessages.newFlowHasNoSteps,
    ]);
  });

  it('a segment drops its read-only fields and the client-only paging and preview', () => {
    const body = {
      id: 5,
      name: 'VIP',
      color: null,
      autoSegment: false,
      conditions: [],
      people: [],
      page: 2,
      peopleIds: [1],
      hasMore: true,
      sort: 'createdAt',
      order: 'desc',
      error: null,
      preview: { totalCount: 3 },
    };
    expect(UpdateSegmentBody.parse(body)).toEqual({ id: 5, name: 'VIP', color: null, conditions: [] });
    expect(UpdateSegmentBody.safeParse({ id: 5, name: 'VIP', members: [] }).success).toBe(false);
  });
});
