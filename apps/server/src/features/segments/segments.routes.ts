import { CreateSegmentBody, EventNames, ExplainBody, ExplainResult, IdParams, MessageResponse, PersonSegments, PreviewConditionsBody, SegmentList, SegmentPeople, SegmentPeopleQuery, SegmentPreview, SegmentSaved, UpdateSegmentBody } from '@herald/contracts';
import { route } from '../../http/route.ts';
import { eventNames, explainPerson, previewConditions, previewSegment, segmentPeople } from './segment-people.service.ts';
import { createSegment, listAccountSegments, personSegments, removeSegment, saveSegment } from './segments.service.ts';

const example = [{ type: 'tag' as const, operator: 'has' as const, tag: 'customer' }];

/** Segments (docs/segments.md): reads need people:read, writes people:write. */
export const segmentsRoutes = [
  route({ method: 'GET', url: '/v1/segments', auth: 'session', scopes: ['people:read'], summary: 'Segments, automatic ones first', response: SegmentList,
    handler: ({ db, session }) => listAccountSegments(db, session) }),
  route({ method: 'POST', url: '/v1/segments/', auth: 'session', scopes: ['people:write'], summary: 'Create a segment', body: CreateSegmentBody, response: SegmentSaved, status: 201,
    example: { name: 'Customers', color: '#228be6', conditions: example },
    handler: ({ db, session, body }) => createSegment(db, session, body) }),
  route({ method: 'GET', url: '/v1/segments/event-names', auth: 'session', scopes: ['people:read'], summary: 'Event names for suggestions', response: EventNames,
    handler: ({ db, session }) => eventNames(db, session) }),
  route({ method: 'POST', url: '/v1/segments/preview', auth: 'session', scopes: ['people:read'], summary: 'Count the people an unsaved tree matches', body: PreviewConditionsBody, response: SegmentPreview,
    example: { conditions: example },
    handler: ({ db, session, body }) => previewConditions(db, session, body) }),
  route({ method: 'PATCH', url: '/v1/segments/:id', auth: 'session', scopes: ['people:write'], summary: 'Save a segment (the segment minus people and preview)', params: IdParams, body: UpdateSegmentBody, response: SegmentSaved,
    example: { id: 1, name: 'Probe' },
    handler: ({ db, session, params, body }) => saveSegment(db, session, params.id, body) }),
  route({ method: 'DELETE', url: '/v1/segments/:id', auth: 'session', scopes: ['people:write'], summary: 'Delete a segment', params: IdParams, response: MessageResponse,
    handler: ({ db, session, params }) => removeSegment(db, session, params.id) }),
  route({ method: 'GET', url: '/v1/segments/:id/preview', auth: 'session', scopes: ['people:read'], summary: 'Count the people in a segment', params: IdParams, response: SegmentPreview,
    handler: ({ db, session, params }) => previewSegment(db, session, params.id) }),
  route({ method: 'GET', url: '/v1/segments/:id/people', auth: 'session', scopes: ['people:read'], summary: 'One page of a segment\'s people', params: IdParams, query: SegmentPeopleQuery, response: SegmentPeople,
    handler: ({ db, session, params, query }) => segmentPeople(db, session, params.id, query) }),
  route({ method: 'POST', url: '/v1/segments/:id/explain', auth: 'session', scopes: ['people:read'], summary: 'Why a person is in or out of a segment', params: IdParams, body: ExplainBody, response: ExplainResult,
    example: { personId: 1 },
    handler: ({ db, session, params, body }) => explainPerson(db, session, params.id, body) }),
  route({ method: 'GET', url: '/v1/people/:id/segments', auth: 'session', scopes: ['people:read'], summary: 'The segments a person is in', params: IdParams, response: PersonSegments,
    handler: ({ db, session, params }) => personSegments(db, session, params.id) }),
];
