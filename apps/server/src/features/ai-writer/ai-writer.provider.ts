import { aiWriterMessages } from '@herald/contracts';
import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import { AppError } from '../../http/errors.ts';
import type { AiPrompt } from './ai-writer.prompts.ts';

export type AiProviderConfig = NonNullable<Config['ai']>;

/** What one chat completion gave: the text and the tokens it cost. */
export interface AiCompletion {
  content: string;
  tokens: number;
}

/**
 * The web app gives up on a call after 30 s (docs/ai-writer.md), so the provider gets at most 25 s in all, retries
 * included: a longer wait could never reach the user.
 */
const longestWaitMs = 25_000;

const clients = new WeakMap<AiProviderConfig, OpenAI>();

function clientFor(config: AiProviderConfig): OpenAI {
  let client = clients.get(config);
  if (!client) {
    // AI_BASE_URL is the operator's setting, not user input: a model server on loopback or a private network is legitimate.
    client = new OpenAI({
      baseURL: config.baseUrl,
      apiKey: config.apiKey,
      timeout: effectiveTimeoutMs(config),
      maxRetries: 1,
    });
    clients.set(config, client);
  }
  return client;
}

/** The time one request may take, all attempts included. */
export function effectiveTimeoutMs(config: AiProviderConfig): number {
  return Math.min(config.timeoutMs, longestWaitMs);
}

/** The part of the chat-completions answer we rely on; anything else is the provider's business. */
const CompletionShape = z.object({
  choices: z
    .array(
      z.object({ message: z.object({ content: z.string().nullable().optional() }).nullable().optional() }),
    )
    .min(1),
  usage: z
    .object({
      total_tokens: z.number().nonnegative().optional(),
      prompt_tokens: z.number().nonnegative().optional(),
      completion_tokens: z.number().nonnegative().optional(),
    })
    .nullable()
    .optional(),
});

/** A provider failure, in the words the user sees (docs/ai-writer.md: the server's message, else the generic one). */
function providerError(message: string = aiWriterMessages.couldNotRetrieve): AppError {
  return new AppError('ServiceError', message, { errorCode: 'ai-provider' });
}

/** Ask the configured OpenAI-compatible model for one chat completion. */
export async function complete(config: AiProviderConfig, prompt: AiPrompt): Promise<AiCompletion> {
  const signal = AbortSignal.timeout(effectiveTimeoutMs(config));
  const messages = [
    { role: 'system' as const, content: prompt.system },
    { role: 'user' as const, content: prompt.user },
  ];
  let answer: unknown;
  try {
    answer = await clientFor(config)
      .chat.completions.create(
        { model: config.model, messages, max_tokens: prompt.maxTokens, temperature: 0.8 },
        { signal },
      )
      .catch((error: unknown) => {
        // OpenAI's reasoning models refuse max_tokens and temperature (400 naming the parameter); they take
        // max_completion_tokens, which also covers their hidden reasoning, hence the larger allowance.
        if (!refusesParameter(error)) throw error;
        return clientFor(config).chat.completions.create(
          { model: config.model, messages, max_completion_tokens: prompt.maxTokens * 4 },
          { signal },
        );
      });
  } catch (error) {
    throw translateError(error);
  }
  const parsed = CompletionShape.safeParse(answer);
  if (!parsed.success) throw providerError();
  const content = parsed.data.choices[0]?.message?.content ?? '';
  if (!content.trim()) throw providerError();
  return { content, tokens: countTokens(parsed.data.usage, prompt, content) };
}

/**
 * Tokens from the provider's usage figures. A few OpenAI-compatible servers leave usage out; then the cost is
 * estimated at four characters a token, so such a server still draws on the monthly budget.
 */
function countTokens(
  usage: z.infer<typeof CompletionShape>['usage'],
  prompt: AiPrompt,
  content: string,
): number {
  if (usage?.total_tokens !== undefined) return Math.ceil(usage.total_tokens);
  if (usage?.prompt_tokens !== undefined || usage?.completion_tokens !== undefined) {
    return Math.ceil((usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0));
  }
  return Math.ceil((prompt.system.length + prompt.user.length + content.length) / 4);
}

function refusesParameter(error: unknown): boolean {
  return (
    error instanceof APIError &&
    error.status === 400 &&
    (error.param === 'max_tokens' || error.param === 'temperature')
  );
}

function translateError(error: unknown): AppError {
  if (error instanceof APIConnectionTimeoutError || error instanceof APIUserAbortError) {
    return providerError(aiWriterMessages.timedOut);
  }
  if (error instanceof APIError && error.status !== undefined && error.status >= 400 && error.status < 500) {
    const detail = providerMessage(error.error);
    // A clean refusal (a wrong key, an unknown model, the provider's own rate limit) is worth passing on as it is.
    if (detail) return providerError(`The AI provider refused the request: ${detail}`);
  }
  return providerError();
}

/** The provider's own message from an OpenAI-shaped error body, trimmed to one readable sentence or two. */
function providerMessage(body: unknown): string | undefined {
  const message = z.object({ message: z.string().trim().min(1) }).safeParse(body);
  if (!message.success) return undefined;
  const text = message.data.message.replace(/\s+/g, ' ');
  if (/<[a-z!]/i.test(text)) return undefined;
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
