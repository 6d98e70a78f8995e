import { z } from 'zod';
import { EmailAddress } from './accounts.ts';
import { emailLimits } from './emails.ts';

/** The email id that stands for ad-hoc content sent in the request itself (docs/broadcasts-and-sending.md). */
export const adHocEmailId = -12345;

/** Limits of a transactional send request. */
export const transactionalLimits = {
  /** Merge values a request may carry. */
  maxDataKeys: 100,
  /** Their total size as JSON, in characters. */
  maxDataLength: 65_536,
  maxDataKeyLength: 100,
  /** How deep its objects and arrays may nest. */
  maxDataDepth: 32,
  maxIdempotencyKeyLength: 200,
  /** How long an Idempotency-Key is remembered at least (it is kept with its send, so in practice for good). */
  idempotencyKeyHours: 24,
  /** Request bodies may carry ad-hoc HTML of up to emailLimits.maxHtmlLength characters and the merge data. */
  bodyLimitBytes: 2_500_000,
} as const;

/** Status of one transactional delivery, as the pipeline records it. */
export const transactionalStatuses = ['pending', 'sending', 'sent', 'failed', 'canceled'] as const;
export type TransactionalStatus = (typeof transactionalStatuses)[number];

/** Messages of the transactional API. */
export const transactionalMessages = {
  emailIdInvalid: `Choose an email: emailId is the id of a saved email, or ${adHocEmailId} for ad-hoc content sent with the request.`,
  adHocNeeds: (field: string) => `An ad-hoc email (emailId ${adHocEmailId}) needs ${field}.`,
  adHocOnly: (field: string) =>
    `Only ad-hoc emails (emailId ${adHocEmailId}) take ${field}; a saved email sends its own.`,
  dataKeyInvalid: `Merge data keys must start with a letter and hold only letters, digits, "_" and "-" (at most ${transactionalLimits.maxDataKeyLength} characters).`,
  dataTooManyKeys: `Merge data may hold at most ${transactionalLimits.maxDataKeys} keys.`,
  dataTooLarge: `Merge data must be at most ${transactionalLimits.maxDataLength.toLocaleString('en-US')} characters as JSON.`,
  dataTooDeep: `Merge data may nest objects and lists at most ${transactionalLimits.maxDataDepth} levels deep.`,
  idempotencyKeyInvalid: `The Idempotency-Key header must be 1 to ${transactionalLimits.maxIdempotencyKeyLength} characters.`,
  idempotencyKeyReused:
    'This Idempotency-Key was already used for a different request. Use a new key for a new email.',
  categoryNotTransactional: (name: string) =>
    `"${name}" is a marketing category. Transactional emails need a transactional category.`,
  categoryArchived: (name: string) => `"${name}" is archived. Choose a category in use.`,
  noTransactionalCategory:
    'This account has no transactional category. Add one under Settings → Email → Categories.',
  noSender:
    'This account has no verified sender yet. Send fromEmail, or verify a sender address under Settings → Email → Senders.',
  notFound: 'Transactional email not found.',
  stoppedBySuppression: (address: string, reason: string) =>
    `Not sent: ${address} is on the suppression list (${reason}).`,
  stoppedArchived: 'Not sent: the person with this address is archived.',
  stoppedOptedOut: 'Not sent: the person with this address opted out of this category.',
} as const;

/** The Idempotency-Key request header: the same key with the same body sends once. */
export const IdempotencyKey = z
  .string({ error: transactionalMessages.idempotencyKeyInvalid })
  .min(1, transactionalMessages.idempotencyKeyInvalid)
  .max(transactionalLimits.maxIdempotencyKeyLength, transactionalMessages.idempotencyKeyInvalid);

const Address = EmailAddress.transform((value) => value.toLowerCase());
const dataKey = new RegExp(`^[A-Za-z][A-Za-z0-9_-]{0,${transactionalLimits.maxDataKeyLength - 1}}$`);

/** How deep objects and arrays nest in a JSON value, counted without recursion (a hostile value may nest thousands deep). */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > transactionalLimits.maxDataDepth) return deepest;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Merge values laid over the recipient's fields when rendering: `{{ person.orderId }}`. */
export const TransactionalData = z
  .record(z.string(), z.unknown())
  .refine((data) => nestingDepth(data) <= transactionalLimits.maxDataDepth, {
    message: transactionalMessages.dataTooDeep,
    abort: true,
  })
  .refine((data) => Object.keys(data).every((key) => dataKey.test(key)), transactionalMessages.dataKeyInvalid)
  .refine(
    (data) => Object.keys(data).length <= transactionalLimits.maxDataKeys,
    transactionalMessages.dataTooManyKeys,
  )
  .refine(
    (data) => JSON.stringify(data).length <= transactionalLimits.maxDataLength,
    transactionalMessages.dataTooLarge,
  );

const adHocFields = ['subject', 'html', 'preheader', 'fromEmail', 'fromName', 'replyTo'] as const;

/** POST /v1/transactional/send: one email to one address. */
export const TransactionalSendBody = z
  .strictObject({
    emailId: z
      .number({ error: transactionalMessages.emailIdInvalid })
      .int(transactionalMessages.emailIdInvalid)
      .refine((id) => id === adHocEmailId || (id > 0 && id <= 2 ** 53), transactionalMessages.emailIdInvalid),
    to: Address,
    data: TransactionalData.optional(),
    subject: z
      .string()
      .trim()
      .min(1, transactionalMessages.adHocNeeds('subject'))
      .max(
        emailLimits.maxSubjectLength,
        `Subject must be at most ${emailLimits.maxSubjectLength} characters.`,
      )
      .optional(),
    html: z
      .string()
      .min(1, transactionalMessages.adHocNeeds('html'))
      .max(emailLimits.maxHtmlLength, "The email's HTML must be at most 1,000,000 characters.")
      .optional(),
    preheader: z
      .string()
      .trim()
      .max(
        emailLimits.maxPreheaderLength,
        `Preheader must be at most ${emailLimits.maxPreheaderLength} characters.`,
      )
      .optional(),
    fromEmail: Address.optional(),
    fromName: z.string().trim().max(200, 'From name must be at most 200 characters.').optional(),
    replyTo: Address.optional(),
    categoryId: z
      .number()
      .int()
      .positive()
      .max(2 ** 53)
      .optional(),
  })
  .superRefine((body, ctx) => {
    if (body.emailId === adHocEmailId) {
      for (const field of ['subject', 'html'] as const) {
        if (body[field] === undefined)
          ctx.addIssue({ code: 'custom', path: [field], message: transactionalMessages.adHocNeeds(field) });
      }
      return;
    }
    for (const field of adHocFields) {
      if (body[field] !== undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: transactionalMessages.adHocOnly(field) });
    }
  });
export type TransactionalSendBody = z.infer<typeof TransactionalSendBody>;

/** The answer to a send: the delivery to ask about later, and where it stands. */
export const TransactionalSendResponse = z.object({
  deliveryId: z.number().int(),
  status: z.enum(transactionalStatuses),
  /** The Message-ID the email left with, once sent. */
  messageId: z.string().optional(),
});
export type TransactionalSendResponse = z.infer<typeof TransactionalSendResponse>;

export const TransactionalParams = z.object({
  deliveryId: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 53),
});

/** GET /v1/transactional/{deliveryId}: one transactional delivery. */
export const TransactionalDelivery = z.object({
  deliveryId: z.number().int(),
  status: z.enum(transactionalStatuses),
  to: z.string(),
  emailId: z.number().int(),
  categoryId: z.number().int(),
  /** Why it failed or was not sent; the last temporary error while it is retried. */
  lastError: z.string().nullable(),
  messageId: z.string().nullable(),
  attempts: z.number().int(),
  createdAt: z.string(),
  /** When the next attempt is due, while pending. */
  nextAttemptAt: z.string().nullable(),
  sentAt: z.string().nullable(),
});
export type TransactionalDelivery = z.infer<typeof TransactionalDelivery>;
