import {
  CreateFlowBody,
  CreateFlowQuery,
  CreateLinkBody,
  CreateStepBody,
  DeleteStepQuery,
  FlowAttached,
  FlowCopyPreview,
  FlowCopyPreviewQuery,
  FlowCreateResponse,
  FlowEmails,
  FlowList,
  FlowListQuery,
  FlowNames,
  FlowPeopleCounts,
  FlowResponse,
  FlowSegments,
  FlowShareToken,
  FlowUpdateResponse,
  IdParams,
  LinkDeleted,
  LinkPairParams,
  LinkResponse,
  ReadOnlyAuthQuery,
  ServicesResponse,
  StepDeleted,
  StepPeople,
  StepPeopleQuery,
  StepQuery,
  StepResponse,
  UpdateFlowBody,
  UpdateStepBody,
  WebhookTestAnswer,
  WebhookTestBody,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { flowGoalsRoutes } from './goals.routes.ts';
import { flowSimulateRoutes } from './simulate.routes.ts';
import {
  createFlow,
  flowAttached,
  flowEmails,
  flowPeopleCounts,
  flowSegments,
  getFlow,
  getFlowNames,
  getFlows,
  updateFlow,
} from './flows.service.ts';
import { copyFlow, copyPreview } from './flows.copy.ts';
import { createFlowFromRecipe } from './flow-recipes.service.ts';
import { flowRecipesRoutes } from './flow-recipes.routes.ts';
import { flowVersionsRoutes } from './flow-versions.routes.ts';
import { assertCatalogueReader, getShareToken, readFlow } from './flows.share.ts';
import { createLink, deleteLink, deleteLinkBetween } from './links.service.ts';
import { getServices } from './services.service.ts';
import { createStep, deleteStep, getStep, stepPeople, updateStep } from './steps.service.ts';
import { testWebhookStep } from './webhook-tester.ts';

const read = ['flows:read'] as const;
const write = ['flows:write'] as const;

/** Flows, steps, links and the step catalogue (docs/flows.md); scopes flows:read / flows:write. */
export const flowsRoutes = [
  ...flowSimulateRoutes,
  ...flowGoalsRoutes,
  route({
    method: 'GET',
    url: '/v1/integrations',
    auth: 'session',
    scopes: [...read],
    summary: 'Flows with their steps and links, newest change first (archived ones with ?archived=true)',
    query: FlowListQuery,
    response: FlowList,
    handler: ({ db, services, session, query }) => getFlows(db, services, session, query.archived),
  }),
  route({
    method: 'GET',
    url: '/v1/integrations/names',
    auth: 'session',
    scopes: [...read],
    summary: 'Id and name of every flow not archived',
    response: FlowNames,
    handler: ({ db, session }) => getFlowNames(db, session),
  }),
  route({
    method: 'POST',
    url: '/v1/integrations',
    auth: 'session',
    scopes: [...write],
    summary:
      "Create a flow, switched off ('Unnamed Flow'), or with ?source={id} a copy of one ('Copy of {name}'), into ?target-account={id} with its emails, segments and fields, from a share token with ?read-only-auth",
    query: CreateFlowQuery,
    body: CreateFlowBody,
    response: FlowCreateResponse,
    status: 201,
    example: { name: 'Welcome series' },
    handler: ({ db, services, session, query, body }) =>
      query.recipe !== undefined
        ? createFlowFromRecipe(
            db,
            services,
            session,
            { recipe: query.recipe, source: query.source },
            body.name,
          )
        : query.source
          ? copyFlow(db, services, session, query, body.name)
          : createFlow(db, services, session, body),
  }),
  route({
    method: 'GET',
    url: '/v1/integrations/:id',
    auth: 'public',
    summary: 'One flow with its steps, links and warnings (flows:read, or read-only-auth: a share token)',
    params: IdParams,
    query: ReadOnlyAuthQuery,
    response: FlowResponse,
    handler: ({ services, session, params, query }) =>
      readFlow({ services, session, token: query['read-only-auth'] }, params.id, (reader) =>
        getFlow(reader, services, params.id),
      ),
  }),
  route({
    method: 'PATCH',
    url: '/v1/integrations/:id',
    auth: 'session',
    scopes: [...write],
    summary: 'Rename, switch on or off (checks first), archive, or set the re-entry rule',
    params: IdParams,
    body: UpdateFlowBody,
    response: FlowUpdateResponse,
    example: { name: 'Welcome series' },
    // Switching a flow on or off shows as active: false → true.
    audit: {
      before: ({ db, services, session, params }) =>
        getFlow({ db, accountId: session.accountId, readOnly: true }, services, params.id),
    },
    handler: ({ db, services, session, params, body }) => updateFlow(db, services, session, params.id, body),
  }),
  route({
    method: 'GET',
    url: '/v1/integrations/:id/share-token',
    auth: 'session',
    scopes: [...read],
    summary: 'A token that opens the flow read-only for 30 days (read-only-auth)',
    params: IdParams,
    response: FlowShareToken,
    handler: ({ db, services, session, params }) => getShareToken(db, services, session, params.id),
  }),
  route({
    method: 'GET',
    url: '/v1/integrations/:id/copy-preview',
    auth: 'session',
    summary:
      'How many emails, segments and custom fields a copy into ?target-account would create there (flows:read or read-only-auth; flows:write in the target)',
    params: IdParams,
    query: FlowCopyPreviewQuery,
    response: FlowCopyPreview,
    handler: ({ db, services, session, params, query }) =>
      copyPreview(db, services, session, params.id, query),
  }),
  route({
    method: 'GET',
    url: '/v1/integrations/:id/people-counts',
    auth: 'session',
    scopes: [...read],
    summary: 'People at each step now, in the flow now, ever entered and done',
    params: IdParams,
    response: FlowPeopleCounts,
    handler: ({ db, session, params }) => flowPeopleCounts(db, session, params.id),
  }),
  route({
    method: 'GET',
    url: '/v1/integrations/:id/emails',
    auth: 'public',
    summary: "The emails the flow's steps use (flows:read, or read-only-auth)",
    params: IdParams,
    query: ReadOnlyAuthQuery,
    response: FlowEmails,
    handler: ({ services, session, params, query }) =>
      readFlow({ services, session, token: query['read-only-auth'] }, params.id, (reader) =>
        flowEmails(reader, params.id),
      ),
  }),
  route({
    method: 'GET',
    url: '/v1/integrations/:id/segments',
    auth: 'public',
    summary: "The segments the flow's steps use (flows:read, or read-only-auth)",
    params: IdParams,
    query: ReadOnlyAuthQuery,
    response: FlowSegments,
    handler: ({ services, session, params, query }) =>
      readFlow({ services, session, token: query['read-only-auth'] }, params.id, (reader) =>
        flowSegments(reader, params.id),
      ),
  }),
  route({
    method: 'GET',
    url: '/v1/integrations/:id/attached',
    auth: 'public',
    summary: "Emails, custom fields and segments the flow's steps use (flows:read, or read-only-auth)",
    params: IdParams,
    query: ReadOnlyAuthQuery,
    response: FlowAttached,
    handler: ({ services, session, params, query }) =>
      readFlow({ services, session, token: query['read-only-auth'] }, params.id, (reader) =>
        flowAttached(reader, params.id),
      ),
  }),

  route({
    method: 'POST',
    url: '/v1/steps/',
    auth: 'session',
    scopes: [...write],
    summary: "Add a step to a flow ('Unknown step' for an operation not in the catalogue)",
    body: CreateStepBody,
    response: StepResponse,
    status: 201,
    example: {
      flowId: 1,
      tempId: 'tmp-1',
      operationKey: '/add-tag',
      inputFields: { properties: { tag: { value: 'customer' } } },
    },
    handler: ({ db, services, session, body }) => createStep(db, services, session, body),
  }),
  route({
    method: 'GET',
    url: '/v1/steps/:id',
    auth: 'session',
    scopes: [...read],
    summary: 'One step with its problem and people count',
    params: IdParams,
    query: StepQuery,
    response: StepResponse,
    handler: ({ db, services, session, params, query }) =>
      getStep(db, services, session, params.id, query.refresh),
  }),
  route({
    method: 'PATCH',
    url: '/v1/steps/:id',
    auth: 'session',
    scopes: [...write],
    summary: 'Change a step (settings of an active flow need confirmActiveEdit)',
    params: IdParams,
    body: UpdateStepBody,
    response: StepResponse,
    example: { coordinates: { x: 20, y: 40 } },
    handler: ({ db, services, session, params, body }) => updateStep(db, services, session, params.id, body),
  }),
  route({
    method: 'DELETE',
    url: '/v1/steps/:id',
    auth: 'session',
    scopes: [...write],
    summary: 'Delete a step and its links (of an active flow with ?confirmActiveEdit=true)',
    params: IdParams,
    query: DeleteStepQuery,
    response: StepDeleted,
    handler: ({ db, session, params, query }) => deleteStep(db, session, params.id, query.confirmActiveEdit),
  }),
  route({
    method: 'GET',
    url: '/v1/steps/:id/people',
    auth: 'session',
    scopes: [...read],
    summary: 'The people now at a step',
    params: IdParams,
    query: StepPeopleQuery,
    response: StepPeople,
    handler: ({ db, session, params, query }) => stepPeople(db, session, params.id, query.limit),
  }),
  route({
    method: 'POST',
    url: '/v1/steps/:id/test-webhook',
    auth: 'session',
    scopes: [...write],
    summary:
      'Send one test request from a “Send webhook” step (the URL in the body, else the saved one) and answer what the receiver said',
    params: IdParams,
    body: WebhookTestBody,
    response: WebhookTestAnswer,
    handler: ({ db, services, session, params, body }) =>
      testWebhookStep(db, services, session, params.id, body),
  }),

  route({
    method: 'POST',
    url: '/v1/links/',
    auth: 'session',
    scopes: [...write],
    summary: 'Link two steps of a flow (a branch of a filter or A/B test names its condition)',
    body: CreateLinkBody,
    response: LinkResponse,
    status: 201,
    example: { source: 1, target: 2 },
    handler: ({ db, session, body }) => createLink(db, session, body),
  }),
  route({
    method: 'DELETE',
    url: '/v1/links/:source/:target',
    auth: 'session',
    scopes: [...write],
    summary: 'Remove the link between two steps',
    params: LinkPairParams,
    response: LinkDeleted,
    handler: ({ db, session, params }) => deleteLinkBetween(db, session, params.source, params.target),
  }),
  route({
    method: 'DELETE',
    url: '/v1/links/:id',
    auth: 'session',
    scopes: [...write],
    summary: 'Remove a link',
    params: IdParams,
    response: LinkDeleted,
    handler: ({ db, session, params }) => deleteLink(db, session, params.id),
  }),

  route({
    method: 'GET',
    url: '/v1/services',
    auth: 'public',
    summary:
      "The native service and its step catalogue with each operation's settings schema (flows:read, or read-only-auth: a share token)",
    query: ReadOnlyAuthQuery,
    response: ServicesResponse,
    handler: ({ services, session, query }) => {
      assertCatalogueReader(services, session, query['read-only-auth']);
      return Promise.resolve(getServices());
    },
  }),
  ...flowRecipesRoutes,
  ...flowVersionsRoutes,
];
