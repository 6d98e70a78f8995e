import { CreateTagsBody, Tag, TagCounts, TagList, TagParams, UpdateTagBody } from '@herald/contracts';
import { z } from 'zod';
import { route } from '../../http/route.ts';
import { countTags, createTags, deleteTag, listManagedTags, updateTag } from './tags.service.ts';

/** Tags management (docs/people.md). */
export const tagsRoutes = [
  route({
    method: 'GET',
    url: '/v1/tags-management',
    auth: 'session',
    scopes: ['people:read'],
    summary: 'Managed tags',
    response: TagList,
    handler: ({ db, session }) => listManagedTags(db, session),
  }),
  route({
    method: 'GET',
    url: '/v1/tags-management/counts',
    auth: 'session',
    scopes: ['people:read'],
    summary: 'People per tag',
    response: TagCounts,
    handler: ({ db, session }) => countTags(db, session),
  }),
  route({
    method: 'POST',
    url: '/v1/tags-management',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Create tags',
    body: CreateTagsBody,
    response: TagList,
    status: 201,
    example: { tags: [{ tag: 'customer', description: 'Paying customers' }] },
    handler: ({ db, session, body }) => createTags(db, session, body),
  }),
  route({
    method: 'PATCH',
    url: '/v1/tags-management/:tag',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Rename a tag or change its description',
    params: TagParams,
    body: UpdateTagBody,
    response: z.object({ tag: Tag }),
    example: { description: 'Probe' },
    handler: ({ db, session, params, body }) => updateTag(db, session, params.tag, body),
  }),
  route({
    method: 'DELETE',
    url: '/v1/tags-management/:tag',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Delete a tag everywhere',
    params: TagParams,
    handler: ({ db, session, params }) => deleteTag(db, session, params.tag),
  }),
];
