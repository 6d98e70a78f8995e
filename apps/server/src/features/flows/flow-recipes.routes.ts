import { RecipeList } from '@herald/contracts';
import { route } from '../../http/route.ts';
import { listRecipes } from './flow-recipes.service.ts';

/** Recipes (docs/flows.md); a flow is made from one with POST /v1/integrations?recipe={id}. */
export const flowRecipesRoutes = [
  route({
    method: 'GET',
    url: '/v1/recipes',
    auth: 'session',
    scopes: ['flows:read'],
    summary: 'Ready-made flows to start from, with their steps and emails counted',
    response: RecipeList,
    handler: () => Promise.resolve(listRecipes()),
  }),
];
