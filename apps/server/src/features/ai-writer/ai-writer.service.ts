import {
  aiWriterMessages,
  type AiSuggestion,
  type AiSuggestionList,
  type AiWriterRequest,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { AppError, unauthorized } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import type { Services } from '../../services.ts';
import { aiWriterAccess } from './ai-writer.access.ts';
import { buildPrompt, splitAnswer } from './ai-writer.prompts.ts';
import { complete, type AiProviderConfig } from './ai-writer.provider.ts';
import {
  addTokenUse,
  findAccountStanding,
  insertSuggestions,
  listSuggestions,
  tokensUsedThisMonth,
} from './ai-writer.queries.ts';

type Row = { id: number; useCase: string; content: string; createdAt: Date };

function toSuggestion(row: Row): AiSuggestion {
  return {
    id: Number(row.id),
    useCase: row.useCase as AiSuggestion['useCase'],
    content: row.content,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Refuse with a clear message unless this server has a provider and the account may use it. */
async function requireAccess(services: Services, db: Database, session: Session): Promise<AiProviderConfig> {
  const account = await findAccountStanding(db, session.accountId);
  if (!account) throw unauthorized();
  const access = aiWriterAccess(services.config, account);
  if (access === 'notConfigured' || !services.config.ai)
    throw new AppError('ForbiddenError', aiWriterMessages.notEnabled, { errorCode: 'ai-not-enabled' });
  if (access === 'planInactive')
    throw new AppError('PaymentRequiredError', aiWriterMessages.planNotAllowed, {
      errorCode: 'ai-plan-inactive',
    });
  return services.config.ai;
}

/** GET /v1/ai-writer: the account's suggestions, newest first. */
export async function listAiSuggestions(
  services: Services,
  db: Database,
  session: Session,
): Promise<AiSuggestionList> {
  await requireAccess(services, db, session);
  const rows = await listSuggestions(db, session.accountId);
  return { suggestions: rows.map(toSuggestion) };
}

/**
 * POST /v1/ai-writer: ask the model for drafts and keep them. The hourly limit is counted outside the request's
 * transaction, so failed calls count too and a failing provider is not hammered; the month's tokens are added only
 * for an answer that was stored. Nothing is stored when the provider fails.
 */
export async function generateAiSuggestions(
  services: Services,
  db: Database,
  session: Session,
  body: AiWriterRequest,
  now: Date = new Date(),
): Promise<AiSuggestionList> {
  const ai = await requireAccess(services, db, session);
  await enforceHourlyLimit(services, ai, session.accountId);
  const used = await tokensUsedThisMonth(db, session.accountId, now);
  if (used >= ai.monthlyTokens) {
    const reset = startOfNextMonth(now);
    throw new AppError('RateLimitError', aiWriterMessages.budgetUsed(formatDate(reset)), {
      errorCode: 'ai-budget',
      retryAfter: Math.max(1, Math.ceil((reset.getTime() - now.getTime()) / 1000)),
    });
  }
  const completion = await complete(ai, buildPrompt(body.useCase, body.parameters));
  const contents = splitAnswer(body.useCase, completion.content);
  if (contents.length === 0)
    throw new AppError('ServiceError', aiWriterMessages.couldNotRetrieve, { errorCode: 'ai-provider' });
  await addTokenUse(db, session.accountId, now, completion.tokens);
  const rows = await insertSuggestions(db, session.accountId, body.useCase, contents);
  return { suggestions: rows.map(toSuggestion).sort((a, b) => a.id - b.id) };
}

async function enforceHourlyLimit(
  services: Services,
  ai: AiProviderConfig,
  accountId: number,
): Promise<void> {
  try {
    await enforceRateLimit(services.db, `ai-writer:${accountId}`, ai.requestsPerHour, 3600);
  } catch (error) {
    if (error instanceof AppError && error.errorName === 'RateLimitError') {
      throw new AppError('RateLimitError', aiWriterMessages.tooManyRequests(ai.requestsPerHour), {
        errorCode: 'ai-rate-limit',
        retryAfter: error.details.retryAfter ?? 3600,
      });
    }
    throw error;
  }
}

function startOfNextMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

function formatDate(date: Date): string {
  return date.toLocaleDateString('en-US', {
    timeZone: 'UTC',
    month: 'long',
    day: 'numeric',
    year: 'numeric',
  });
}
