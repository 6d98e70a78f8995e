import { z } from 'zod';
import { Flow } from './flows.ts';

/**
 * Copying a flow into another account (docs/flows.md, "Share and copy").
 * `POST /v1/integrations?source={id}&target-account={accountId}&read-only-auth={token}` answers the new flow, the
 * spec's message and how many emails, segments and custom fields were created in the target account with it.
 */

/** What a copy created beside the flow (all 0 within one account: the copy shares the original's). */
export const FlowCopyCounts = z.object({
  emails: z.number().int().min(0),
  segments: z.number().int().min(0),
  fields: z.number().int().min(0),
});
export type FlowCopyCounts = z.infer<typeof FlowCopyCounts>;

/**
 * The answer of POST /v1/integrations: `copied` only when a flow was copied, and `accountId` the account the new
 * flow lives in (the session's own unless the copy went to another account).
 */
export const FlowCreateResponse = z.object({
  integration: Flow,
  message: z.string().nullable(),
  copied: FlowCopyCounts.optional(),
  accountId: z.number().int().optional(),
});
export type FlowCreateResponse = z.infer<typeof FlowCreateResponse>;

/** GET /v1/integrations/{id}/copy-preview: what a copy into the target account would create there. */
export const FlowCopyPreviewQuery = z.object({
  'target-account': z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 53)
    .optional(),
  'read-only-auth': z.string().max(2000).optional(),
});
export const FlowCopyPreview = z.object({
  accountId: z.number().int(),
  sameAccount: z.boolean(),
  copied: FlowCopyCounts,
});
export type FlowCopyPreview = z.infer<typeof FlowCopyPreview>;

export const flowCopyMessages = {
  notMember: 'You can only copy a flow into an account you belong to.',
  noWriteInTarget: 'You need the flows:write permission in the account you copy to.',
  noReadInSource: 'You need the flows:read permission to copy this flow.',
  prompt: 'Copy this flow to:',
  confirmOwn: 'Are you sure you want to copy this flow to your account?',
  copyToYourAccount: 'Copy this flow to your account',
  previewError: "Couldn't work out what the copy brings with it.",
  copyError: "Couldn't copy the flow.",
} as const;
