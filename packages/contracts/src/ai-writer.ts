import { z } from 'zod';

/** What the AI writer drafts (docs/ai-writer.md): subject lines, a whole email (the default) or an outline. */
export const aiUseCases = ['subjectLine', 'writeEmail', 'emailOutline'] as const;
export const AiUseCase = z.enum(aiUseCases, {
  message: 'Choose subjectLine, writeEmail or emailOutline as the use case.',
});
export type AiUseCase = z.infer<typeof AiUseCase>;

/** The labels the modal shows for each use case (docs/ai-writer.md). */
export const aiUseCaseLabels: Record<AiUseCase, string> = {
  subjectLine: 'Subject Lines',
  writeEmail: 'Write Email',
  emailOutline: 'Email Outline',
};

/** Length caps of the brief: enough for a detailed description, far below what would flood the model. */
export const aiWriterLimits = { emailAbout: 2000, companyName: 200, tone: 100 } as const;

const briefText = (field: string, max: number) =>
  z
    .string({ message: `${field} is required.` })
    .trim()
    .min(1, `${field} is required.`)
    .max(max, `${field} is too long: keep it under ${max} characters.`);

/** The brief the model writes from (docs/ai-writer.md: emailAbout and companyName required, tone optional). */
export const AiWriterParameters = z.strictObject(
  {
    emailAbout: briefText('What the email is about', aiWriterLimits.emailAbout),
    companyName: briefText('The company name', aiWriterLimits.companyName),
    tone: z
      .string()
      .trim()
      .max(aiWriterLimits.tone, `The tone is too long: keep it under ${aiWriterLimits.tone} characters.`)
      .optional(),
  },
  { message: 'Send the parameters emailAbout, companyName and tone.' },
);
export type AiWriterParameters = z.infer<typeof AiWriterParameters>;

/** POST /v1/ai-writer. */
export const AiWriterRequest = z.strictObject({
  useCase: AiUseCase.default('writeEmail'),
  parameters: AiWriterParameters,
});
export type AiWriterRequest = z.infer<typeof AiWriterRequest>;

/** One drafted text (docs/ai-writer.md: id, useCase, content). */
export const AiSuggestion = z.object({
  id: z.number().int(),
  useCase: AiUseCase,
  content: z.string(),
  createdAt: z.string(),
});
export type AiSuggestion = z.infer<typeof AiSuggestion>;

/** GET /v1/ai-writer: the account's suggestions, newest first. POST answers the ones it created, in the same order. */
export const AiSuggestionList = z.object({ suggestions: z.array(AiSuggestion) });
export type AiSuggestionList = z.infer<typeof AiSuggestionList>;

/** The AI writer's messages (docs/ai-writer.md and the server's refusals). */
export const aiWriterMessages = {
  couldNotRetrieve: "We couldn't retrieve suggestions.",
  notEnabled:
    'The AI writer is not enabled on this server. The operator turns it on by setting AI_BASE_URL and AI_API_KEY.',
  planNotAllowed:
    "The AI writer isn't available while this account's plan is inactive. Choose a plan to use it again.",
  timedOut: "The AI model didn't answer in time. We couldn't retrieve suggestions.",
  tooManyRequests: (perHour: number) =>
    `You've asked the AI writer ${perHour} times this hour, its hourly limit. Please try again later.`,
  budgetUsed: (resetDate: string) =>
    `This account has used its AI writer tokens for this month. They renew on ${resetDate}.`,
} as const;
