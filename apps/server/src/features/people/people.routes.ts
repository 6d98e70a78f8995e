import {
  PersonIdParams,
  PersonSearchQuery,
  PersonSearchResult,
  PersonUsers,
  PersonValues,
  TagPeopleBody,
  Person,
  MessageResponse,
} from '@herald/contracts';
import { z } from 'zod';
import { route } from '../../http/route.ts';
import {
  createPerson,
  editPerson,
  getPerson,
  removePerson,
  search,
  tagPeople,
  untagPeople,
} from './people.service.ts';

const TagResult = z.object({ tag: z.string(), changed: z.number().int() });

/** People and per-person tags (docs/people.md). */
export const peopleRoutes = [
  route({
    method: 'GET',
    url: '/v1/people/search',
    auth: 'session',
    scopes: ['people:read'],
    summary: 'Search people by email or name, 100 a page',
    query: PersonSearchQuery,
    response: PersonSearchResult,
    handler: ({ db, session, query }) => search(db, session, query.query, query.page),
  }),
  route({
    method: 'POST',
    url: '/v1/people/',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Add a person',
    query: z.object({ source: z.string().max(50).optional() }),
    body: PersonValues,
    response: z.object({ user: Person }),
    status: 201,
    example: { email: 'ada@example.com', firstName: 'Ada', tags: 'customer' },
    handler: ({ db, session, body }) => createPerson(db, session, body),
  }),
  route({
    method: 'GET',
    url: '/v1/people/:id',
    auth: 'session',
    scopes: ['people:read'],
    summary: 'One person (as users[0])',
    params: PersonIdParams,
    response: PersonUsers,
    handler: ({ db, session, params }) => getPerson(db, session, params.id),
  }),
  route({
    method: 'PATCH',
    url: '/v1/people/:id',
    auth: 'session',
    scopes: ['people:write'],
    summary: "Change a person's fields",
    params: PersonIdParams,
    body: PersonValues,
    response: z.object({ user: Person, message: z.string() }),
    example: { firstName: 'Probe' },
    handler: ({ db, session, params, body }) => editPerson(db, session, params.id, body),
  }),
  route({
    method: 'DELETE',
    url: '/v1/people',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Delete a person for good (force=true)',
    query: z.object({
      force: z.literal('true', 'Deleting a person needs force=true.'),
      id: z.coerce
        .number()
        .int()
        .positive()
        .max(2 ** 53),
    }),
    response: MessageResponse,
    handler: ({ services, db, session, query }) => removePerson(services.events, db, session, query.id),
  }),
  route({
    method: 'POST',
    url: '/v1/tags/',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Add a tag to people',
    body: TagPeopleBody,
    response: TagResult,
    example: { tag: 'customer', id: 1 },
    handler: ({ db, session, body }) => tagPeople(db, session, body),
  }),
  route({
    method: 'DELETE',
    url: '/v1/tags/',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Remove a tag from people',
    body: TagPeopleBody,
    response: TagResult,
    example: { tag: 'customer', id: 1 },
    handler: ({ db, session, body }) => untagPeople(db, session, body),
  }),
];
