import { CreateFieldsBody, FieldList, PersonField, UpdateFieldBody } from '@herald/contracts';
import { z } from 'zod';
import { route } from '../../http/route.ts';
import { createFields, deleteField, listFields, updateField } from './fields.service.ts';

const FieldParams = z.object({ name: z.string().min(1).max(100) });

/** Custom person fields (docs/people.md). */
export const fieldsRoutes = [
  route({
    method: 'GET',
    url: '/v1/fields',
    auth: 'session',
    scopes: ['people:read'],
    summary: 'Built-in and custom person fields',
    response: FieldList,
    handler: ({ db, session }) => listFields(db, session),
  }),
  route({
    method: 'POST',
    url: '/v1/fields',
    auth: 'session',
    scopes: ['personFields:write'],
    summary: 'Create custom fields',
    body: CreateFieldsBody,
    response: FieldList,
    status: 201,
    example: { items: [{ name: 'plan', title: 'Plan', type: 'enum', enum: ['free', 'pro'] }] },
    handler: ({ db, session, body }) => createFields(db, session, body),
  }),
  route({
    method: 'PATCH',
    url: '/v1/fields/:name',
    auth: 'session',
    scopes: ['personFields:write'],
    summary: 'Change a custom field',
    params: FieldParams,
    body: UpdateFieldBody,
    response: z.object({ item: PersonField }),
    example: { title: 'Probe' },
    handler: ({ db, session, params, body }) => updateField(db, session, params.name, body),
  }),
  route({
    method: 'DELETE',
    url: '/v1/fields/:name',
    auth: 'session',
    scopes: ['personFields:write'],
    summary: 'Delete a custom field and its values',
    params: FieldParams,
    handler: ({ db, session, params }) => deleteField(db, session, params.name),
  }),
];
