import type { RecipeSummary } from '@herald/contracts';
import { abandonedSignup, trialNurture, welcomeSeries } from './onboarding.ts';
import { birthday, reEngagement, webinarReminders } from './engagement.ts';
import { leadScoring, postPurchase } from './customers.ts';
import type { Recipe } from './recipe-types.ts';

/** Every recipe, in the order the gallery shows them. */
export const recipes: readonly Recipe[] = [
  welcomeSeries,
  trialNurture,
  abandonedSignup,
  reEngagement,
  webinarReminders,
  birthday,
  leadScoring,
  postPurchase,
];

export const findRecipe = (id: string): Recipe | undefined => recipes.find((r) => r.id === id);

export function summarize(recipe: Recipe): RecipeSummary {
  return {
    id: recipe.id,
    name: recipe.name,
    description: recipe.description,
    category: recipe.category,
    stepCount: recipe.steps.length,
    emailCount: recipe.emails.length,
    trigger: recipe.trigger,
    toChoose: recipe.toChoose,
  };
}
