import { FlowConversions, FlowGoal, IdParams, SetFlowGoalBody } from '@herald/contracts';
import { z } from 'zod';
import { route } from '../../http/route.ts';
import { getConversions, getGoal, setGoal } from './goals.service.ts';

/** Flow goals and conversions (issue 20). */
export const flowGoalsRoutes = [
  route({
    method: 'GET',
    url: '/v1/integrations/:id/goal',
    auth: 'session',
    scopes: ['flows:read'],
    summary: 'The flow’s goal (segment conditions), or null',
    params: IdParams,
    response: FlowGoal,
    handler: ({ db, session, params }) => getGoal(db, session, params.id),
  }),
  route({
    method: 'PUT',
    url: '/v1/integrations/:id/goal',
    auth: 'session',
    scopes: ['flows:write'],
    summary:
      'Set the flow’s goal (conditions checked as a segment’s are) or remove it (null); a person reaching it ends their run as a conversion',
    params: IdParams,
    body: SetFlowGoalBody,
    response: FlowGoal.extend({ message: z.string() }),
    example: { conditions: [{ type: 'tag', operator: 'has', tag: 'customer' }] },
    handler: ({ db, session, params, body }) => setGoal(db, session, params.id, body.conditions),
  }),
  route({
    method: 'GET',
    url: '/v1/integrations/:id/conversions',
    auth: 'session',
    scopes: ['flows:read'],
    summary:
      'Conversions, the conversion rate over entries, and per step the runs that passed it and converted',
    params: IdParams,
    response: FlowConversions,
    handler: ({ db, session, params }) => getConversions(db, session, params.id),
  }),
];
