import { z } from 'zod';

/**
 * Recipes (docs/flows.md, "Recipes and versions": GET /v1/recipes, and POST /v1/integrations with
 * ?recipe={id}): ready-made flows written for Herald. Creating a flow from one adds the flow, switched off, with
 * its steps, links and canvas places, and its emails as drafts of the account.
 */
export const recipeCategories = [
  'Onboarding',
  'Nurture',
  'Re-engagement',
  'Events',
  'Sales',
  'Customers',
] as const;
export type RecipeCategory = (typeof recipeCategories)[number];

export const RecipeSummary = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.enum(recipeCategories),
  /** Steps the flow gets, trigger included. */
  stepCount: z.number().int(),
  /** Emails created with it, as drafts. */
  emailCount: z.number().int(),
  /** What starts it, in words ("A tag is added: trial"). */
  trigger: z.string(),
  /** What the user chooses before switching it on (a segment of their own…); empty when it can run as created. */
  toChoose: z.array(z.string()),
});
export type RecipeSummary = z.infer<typeof RecipeSummary>;

/** GET /v1/recipes. */
export const RecipeList = z.object({ recipes: z.array(RecipeSummary) });

export const recipeIdPattern = /^[a-z0-9-]{1,60}$/;

export const recipeMessages = {
  notFound: 'Recipe not found.',
  /** POST /v1/integrations?recipe={id} answers this with the new flow. */
  created: (name: string) => `Flow created from the recipe “${name}”. Its emails are drafts in Emails.`,
  /** Shown with source and recipe in one call. */
  sourceAndRecipe: 'Copy a flow or start from a recipe, not both at once.',
} as const;
