import {
  FlowVersionList,
  FlowVersionParams,
  FlowVersionQuery,
  FlowVersionResponse,
  IdParams,
  RestoreFlowVersionBody,
  RestoreFlowVersionResponse,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { getFlowVersion, listFlowVersions, restoreFlowVersion } from './flow-versions.service.ts';

/** Versions of a flow (issue 20): saved when it is switched on, compared, restored. */
export const flowVersionsRoutes = [
  route({
    method: 'GET',
    url: '/v1/integrations/:id/versions',
    auth: 'session',
    scopes: ['flows:read'],
    summary: 'The versions saved each time the flow was switched on changed, newest first, with who and when',
    params: IdParams,
    response: FlowVersionList,
    handler: ({ db, session, params }) => listFlowVersions(db, session, params.id),
  }),
  route({
    method: 'GET',
    url: '/v1/integrations/:id/versions/:number',
    auth: 'session',
    scopes: ['flows:read'],
    summary:
      'One version: its steps, links and settings; with ?compare={number} what changed from that version to this one',
    params: FlowVersionParams,
    query: FlowVersionQuery,
    response: FlowVersionResponse,
    handler: ({ db, session, params, query }) =>
      getFlowVersion(db, session, params.id, params.number, query.compare),
  }),
  route({
    method: 'POST',
    url: '/v1/integrations/:id/versions/:number/restore',
    auth: 'session',
    scopes: ['flows:write'],
    summary:
      'Put back the steps, links and re-entry rule of a version (an active flow needs confirmActiveEdit)',
    params: FlowVersionParams,
    body: RestoreFlowVersionBody,
    response: RestoreFlowVersionResponse,
    example: { confirmActiveEdit: true },
    handler: ({ db, services, session, params, body }) =>
      restoreFlowVersion(db, services, session, params.id, params.number, body.confirmActiveEdit),
  }),
];
