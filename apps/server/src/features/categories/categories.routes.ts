import {
  CategoryCounts,
  CategoryList,
  CategoryResponse,
  CategoryUpdateResponse,
  CreateCategoryBody,
  IdParams,
  UpdateCategoryBody,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { countCategories, createCategory, listCategories, updateCategory } from './categories.service.ts';

/** Communication categories (docs/senders-and-consent.md); changing them needs emailSettings:write. */
export const categoriesRoutes = [
  route({
    method: 'GET',
    url: '/v1/settings/communication-categories',
    auth: 'session',
    summary: 'Communication categories, the default first; archived ones flagged',
    response: CategoryList,
    handler: ({ db, session }) => listCategories(db, session),
  }),
  route({
    method: 'GET',
    url: '/v1/settings/communication-categories/counts',
    auth: 'session',
    summary: 'Per category: emails filed under it, people opted in and out',
    response: CategoryCounts,
    handler: ({ db, session }) => countCategories(db, session),
  }),
  route({
    method: 'POST',
    url: '/v1/settings/communication-categories',
    auth: 'session',
    scopes: ['emailSettings:write'],
    summary: 'Create a category (marketing unless said otherwise)',
    body: CreateCategoryBody,
    response: CategoryResponse,
    status: 201,
    example: { name: 'Product updates', description: 'What is new in the product.' },
    handler: ({ db, session, body }) => createCategory(db, session, body),
  }),
  route({
    method: 'PATCH',
    url: '/v1/settings/communication-categories/:id',
    auth: 'session',
    scopes: ['emailSettings:write'],
    summary: "Rename, describe, archive or make default ('Category updated.')",
    params: IdParams,
    body: UpdateCategoryBody,
    response: CategoryUpdateResponse,
    example: { description: 'Monthly news.' },
    handler: ({ db, session, params, body }) => updateCategory(db, session, params.id, body),
  }),
];
