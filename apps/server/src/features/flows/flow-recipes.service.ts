import { encodeInputFields, nativeServiceId, recipeMessages, stepTypeOf } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { insertEmail } from '../emails/emails.queries.ts';
import { findMember } from '../team/team.queries.ts';
import { defaultSender } from '../transactional/transactional.queries.ts';
import { automaticSegmentIds, ensureFields, markRecipe } from './flow-recipes.queries.ts';
import { findFlow, insertFlow } from './flows.queries.ts';
import { shapeFlows } from './flows.shape.ts';
import { insertLink } from './links.queries.ts';
import { findRecipe, recipes, summarize } from './recipes/index.ts';
import { insertStep } from './steps.queries.ts';
import { newWebhookSecret } from './steps.webhook.ts';

/** GET /v1/recipes: every recipe with what it holds. */
export function listRecipes() {
  return { recipes: recipes.map(summarize) };
}

type Fill = { emails: ReadonlyMap<string, number>; segments: ReadonlyMap<string, number>; me: string };

/** A recipe step's settings with its placeholders filled in; an automatic segment the account lacks is left unset. */
export function fillPlaceholders(value: unknown, fill: Fill): unknown {
  if (Array.isArray(value)) return value.map((v) => fillPlaceholders(v, fill));
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  if (typeof record.$email === 'string') return fill.emails.get(record.$email);
  if (typeof record.$segment === 'string') return fill.segments.get(record.$segment);
  if (record.$me === true) return fill.me;
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fillPlaceholders(v, fill)]));
}

/**
 * POST /v1/integrations?recipe={id}: the recipe's flow, switched off and named after it, with its steps, links and
 * canvas places, its emails as drafts of the account (sent from the account's default sender, else the user's
 * address) and the custom fields it reads. The route's transaction makes it all or nothing.
 */
export async function createFlowFromRecipe(
  db: Database,
  services: Services,
  session: Session,
  query: { recipe: string; source?: number | undefined },
  name: string | undefined,
) {
  if (query.source !== undefined) throw badRequest(recipeMessages.sourceAndRecipe);
  const recipe = findRecipe(query.recipe);
  if (!recipe) throw notFound(recipeMessages.notFound);
  const { accountId } = session;
  const [member, sender, segments] = await Promise.all([
    findMember(db, accountId, session.teamMemberId),
    defaultSender(db, accountId),
    automaticSegmentIds(db, accountId),
  ]);
  const me = member?.email ?? '';
  const fromEmail = sender.fromEmail ?? me;
  const fromName = sender.fromName ?? sender.accountName ?? '';

  await ensureFields(db, accountId, recipe.fields ?? []);
  const emails = new Map<string, number>();
  for (const email of recipe.emails) {
    const row = await insertEmail(db, {
      accountId,
      name: email.name,
      subject: email.subject,
      preheader: email.preheader,
      fromName,
      fromEmail,
      html: email.html,
      editor: JSON.stringify({ type: 'html', state: null, html: email.html }),
      createdBy: session.teamMemberId,
    });
    emails.set(email.key, Number(row.id));
  }

  const flow = await insertFlow(db, {
    accountId,
    name: (name || recipe.name).slice(0, 200),
    createdBy: session.teamMemberId,
  });
  const flowId = Number(flow.id);
  const stepIds = new Map<string, number>();
  for (const [position, step] of recipe.steps.entries()) {
    const config = fillPlaceholders(step.config, { emails, segments, me }) as Record<string, unknown>;
    const row = await insertStep(db, {
      accountId,
      flowId,
      type: stepTypeOf(step.operationKey),
      serviceId: nativeServiceId,
      operationKey: step.operationKey,
      inputFields: encodeInputFields(config),
      x: step.x,
      y: step.y,
      position,
      secret: step.operationKey === '/webhook-trigger' ? newWebhookSecret() : null,
    });
    stepIds.set(step.key, Number(row.id));
  }
  for (const link of recipe.links) {
    await insertLink(db, {
      accountId,
      flowId,
      source: stepIds.get(link.from)!,
      target: stepIds.get(link.to)!,
      condition: link.condition ?? null,
    });
  }
  await markRecipe(db, accountId, flowId, recipe.id, recipe.reentryDays ?? null);
  const row = (await findFlow(db, accountId, flowId))!;
  const [integration] = await shapeFlows(db, services, accountId, [row]);
  return { integration: integration!, message: recipeMessages.created(recipe.name) };
}
