import { z } from 'zod';

/**
 * POST /v1/steps/{id}/test-webhook: one test request from a "Send webhook" step to the URL on screen (or the saved
 * one), answered with what the receiver said. Nothing is stored and no person is involved.
 */
export const WebhookTestBody = z.object({ url: z.string().trim().max(2000).optional() }).strict();

export const WebhookTestAnswer = z.object({
  /** The receiver answered 2xx. */
  ok: z.boolean(),
  /** The HTTP status, or null when no answer came (refused, time-out, network error). */
  status: z.number().int().nullable(),
  durationMs: z.number().int().nonnegative(),
  /** The first 2,000 characters of the answer. */
  responseBody: z.string(),
  /** Why the call failed, fit to show; null when it got an answer. */
  error: z.string().nullable(),
  /** The JSON that was sent: the shape of a real call, with a sample person. */
  payload: z.record(z.string(), z.unknown()),
});
export type WebhookTestAnswer = z.infer<typeof WebhookTestAnswer>;

export const webhookTestMessages = {
  notWebhookStep: 'Only a “Send webhook” step can send a test request.',
  noUrl: 'Enter the URL to call first.',
} as const;
