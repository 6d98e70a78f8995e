import { z } from 'zod';
import { EmailAddress } from './accounts.ts';
import { bodyIdMismatch, entityBody } from './entity-body.ts';

/** Messages of the emails area (docs/emails.md). */
export const emailMessages = {
  subjectNeeded: 'Email subject is needed.',
  fromEmailNeeded: 'From email is needed.',
  missingId: 'Missing email ID.',
  idMismatch: bodyIdMismatch('email'),
  missingContent: 'Missing email content.',
  notFound: 'Email not found.',
  defaultName: 'Unnamed email',
  copyPrefix: 'Copy of ',
  copied: 'Email copied.',
  testSent: (to: string) => `Test email sent to ${to}`,
  tooManyTestRecipients: (max: number) => `A test can go to at most ${max} addresses.`,
  noTestRecipients: 'Add at least one address to send the test to.',
  targetAccountForbidden:
    'You can only copy emails into accounts you belong to with the emails:write permission.',
  htmlTooLarge: "The email's HTML must be at most 1,000,000 characters.",
  templateError: (part: string, line: number | undefined, detail: string) =>
    `Merge tag error in the ${part}${line ? ` on line ${line}` : ''}: ${detail}`,
  // Web toasts and fallbacks (docs/emails.md)
  loadError: 'Error while loading your emails.',
  saveError: "Couldn't save your email.",
  createError: 'Error while creating your email.',
  copyError: (detail: string) => `Error while copying email. ${detail}`,
  archiveError: (detail: string) => `Error while archiving email. ${detail}`,
  testError: 'Error while sending test email.',
  statsError: 'Error while getting email stats.',
  sendError: 'Error while sending your email.',
  retrieveFallback: "We couldn't retrieve your emails.",
  createFallback: "We couldn't create your email.",
  updateFallback: "We couldn't update your email.",
  copyFallback: "We couldn't copy your email.",
  fontSaveError: "Couldn't save the font.",
  fontDeleteError: "Couldn't delete the font.",
  templatesError: 'Error while loading templates.',
  mailingAddressError: "Couldn't save your mailing address.",
  utmError: "Couldn't save Automatic UTM tagging settings.",
} as const;

/** Limits of the emails area (docs/emails.md: max test emails 5). */
export const emailLimits = {
  maxTestRecipients: 5,
  /** Largest HTML an email may hold (characters); ten times a heavy newsletter. */
  maxHtmlLength: 1_000_000,
  /** Largest serialised editor state (a drag-and-drop project carries its components and styles). */
  maxEditorStateLength: 2_000_000,
  /** Request bodies of the email calls may carry HTML and editor state together. */
  bodyLimitBytes: 3_500_000,
  maxNameLength: 200,
  maxSubjectLength: 500,
  maxPreheaderLength: 500,
} as const;

/** Editors an email can be written in: HTML code, rich text, or drag-and-drop blocks. */
export const emailEditorTypes = ['html', 'richtext', 'dragdrop'] as const;
export type EmailEditorType = (typeof emailEditorTypes)[number];

const Html = z.string().max(emailLimits.maxHtmlLength, emailMessages.htmlTooLarge);

/**
 * What an editor keeps: its type, its own state (TipTap's document, the drag-and-drop project;
 * null for HTML code) and the HTML it last produced. `Email.html` is what gets rendered and sent.
 */
export const EmailEditor = z.object({
  type: z.enum(emailEditorTypes),
  state: z
    .unknown()
    .refine(
      (value) => value === undefined || JSON.stringify(value).length <= emailLimits.maxEditorStateLength,
      {
        message: "The editor's content must be at most 2,000,000 characters.",
      },
    )
    .nullable(),
  html: Html,
});
export type EmailEditor = z.infer<typeof EmailEditor>;

/** Figures shown in the list; zero until sending and tracking report them. */
export const EmailStats = z.object({
  sent: z.number().int(),
  opened: z.number().int(),
  clicked: z.number().int(),
  unsubscribed: z.number().int(),
  bounced: z.number().int(),
});
export type EmailStats = z.infer<typeof EmailStats>;
export const emptyEmailStats: EmailStats = { sent: 0, opened: 0, clicked: 0, unsubscribed: 0, bounced: 0 };

/** An email (docs/emails.md). */
export const Email = z.object({
  id: z.number().int(),
  name: z.string(),
  subject: z.string(),
  preheader: z.string(),
  fromName: z.string(),
  fromEmail: z.string(),
  replyTo: z.string().nullable(),
  /** Its communication category; the account's default category when null. */
  categoryId: z.number().int().nullable(),
  html: z.string(),
  type: z.literal('HTML'),
  editor: EmailEditor,
  archived: z.boolean(),
  stats: EmailStats,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Email = z.infer<typeof Email>;

/** `/v1/emails/{id}`: a path without a usable id is 'Missing email ID.' */
export const EmailIdParams = z.object({
  id: z.coerce
    .number({ error: emailMessages.missingId })
    .int(emailMessages.missingId)
    .positive(emailMessages.missingId)
    .max(2 ** 53, emailMessages.missingId),
});

/** A row of the email list: everything but the content. */
export const EmailSummary = Email.omit({ html: true, editor: true }).extend({
  editorType: z.enum(emailEditorTypes),
});
export type EmailSummary = z.infer<typeof EmailSummary>;
export const EmailList = z.object({ emails: z.array(EmailSummary) });
export const EmailResponse = z.object({ email: Email });
export const EmailListQuery = z.object({
  /** true: archived emails only; all: both; false or absent: active ones only. */
  archived: z.enum(['true', 'false', 'all']).optional(),
});

const name = z
  .string()
  .trim()
  .max(emailLimits.maxNameLength, `Email name must be at most ${emailLimits.maxNameLength} characters.`);
const subject = z
  .string({ error: emailMessages.subjectNeeded })
  .trim()
  .min(1, emailMessages.subjectNeeded)
  .max(emailLimits.maxSubjectLength, `Subject must be at most ${emailLimits.maxSubjectLength} characters.`);
const fromEmail = z
  .string({ error: emailMessages.fromEmailNeeded })
  .trim()
  .min(1, emailMessages.fromEmailNeeded)
  .pipe(EmailAddress);
const fromName = z.string().trim().max(200, 'From name must be at most 200 characters.');
const preheader = z
  .string()
  .trim()
  .max(
    emailLimits.maxPreheaderLength,
    `Preheader must be at most ${emailLimits.maxPreheaderLength} characters.`,
  );
const replyTo = z.union([z.literal('').transform(() => null), EmailAddress, z.null()]);

/** A cleared field arrives as null: it is empty, so it gets the field's own message. */
const nullAsEmpty = (value: unknown) => (value === null ? '' : value);

/** What the server works out for an email (the list's rows carry editorType): accepted and ignored. */
const emailIgnored = ['stats', 'createdAt', 'updatedAt', 'editorType'] as const;

/**
 * POST /v1/emails: an email body; subject and fromEmail are needed (docs/emails.md), the rest has defaults. The
 * server gives it its id, and a new email is not archived: id and archived are ignored with the reported fields.
 */
export const CreateEmailBody = entityBody(
  {
    name: name.optional(),
    subject,
    fromEmail,
    fromName: fromName.optional(),
    preheader: preheader.optional(),
    replyTo: replyTo.optional(),
    categoryId: z.number().int().positive().nullable().optional(),
    html: Html.optional(),
    editor: EmailEditor.optional(),
    type: z.literal('HTML').optional(),
    /** File the new email in this folder (folderType emails). */
    folderId: z.number().int().positive().optional(),
  },
  ['id', 'archived', ...emailIgnored],
);
export type CreateEmailBody = z.infer<typeof CreateEmailBody>;

/**
 * PATCH /v1/emails/{id}: any subset of the email. Subject and from email may not be emptied, and
 * the content travels whole: `editor` and `html` together or neither ('Missing email content.').
 * An id must be the address's; the fields the entity only reports (stats, timestamps) are accepted
 * and ignored, so a client can send the email back as it got it.
 */
export const UpdateEmailBody = entityBody(
  {
    id: z.number().int().optional(),
    name: name.optional(),
    subject: z.preprocess(nullAsEmpty, subject).optional(),
    fromEmail: z.preprocess(nullAsEmpty, fromEmail).optional(),
    fromName: fromName.optional(),
    preheader: preheader.optional(),
    replyTo: replyTo.optional(),
    categoryId: z.number().int().positive().nullable().optional(),
    html: Html.optional(),
    editor: EmailEditor.optional(),
    type: z.literal('HTML').optional(),
    archived: z.boolean().optional(),
  },
  emailIgnored,
).refine((body) => (body.html === undefined) === (body.editor === undefined), {
  message: emailMessages.missingContent,
});
export type UpdateEmailBody = z.infer<typeof UpdateEmailBody>;

/** The parts of an email that rendering reads; a test or preview may carry unsaved changes. */
export const EmailDraft = z.object({
  id: z.number().int().optional(),
  /** The email's name: the campaign of automatic UTM tagging. */
  name: z.string().max(emailLimits.maxNameLength).optional(),
  subject: z.string({ error: emailMessages.subjectNeeded }).max(emailLimits.maxSubjectLength),
  preheader: z.string().max(emailLimits.maxPreheaderLength).optional(),
  fromName: z.string().max(200).optional(),
  fromEmail: z.string().max(254).optional(),
  replyTo: z.string().max(254).nullable().optional(),
  html: Html,
});
export type EmailDraft = z.infer<typeof EmailDraft>;

/** POST /v1/emails/test: render the draft for a chosen person (or sample data) and send it to up to 5 addresses. */
export const TestEmailBody = z.object({
  email: EmailDraft,
  sendTo: z
    .union([
      z.string().transform((value) =>
        value
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean),
      ),
      z.array(z.string().trim()),
    ])
    .pipe(
      z
        .array(EmailAddress)
        .min(1, emailMessages.noTestRecipients)
        .max(
          emailLimits.maxTestRecipients,
          emailMessages.tooManyTestRecipients(emailLimits.maxTestRecipients),
        ),
    ),
  /** Render as this person; sample data when absent. */
  personId: z.number().int().positive().optional(),
});
export type TestEmailBody = z.infer<typeof TestEmailBody>;
export const TestEmailResponse = z.object({ message: z.string() });

/** POST /v1/emails/duplication: 'Copy of {name}' in this account or another one the user belongs to. */
export const DuplicateEmailBody = z.strictObject({
  emailId: z.number({ error: emailMessages.missingId }).int().positive(),
  targetAccountId: z.number().int().positive().optional(),
});
export const DuplicateEmailResponse = z.object({ email: Email, message: z.string() });

/** POST /v1/emails/preview: the draft rendered for a person (or sample data), as it would be sent. */
export const PreviewEmailBody = z.object({
  email: EmailDraft,
  personId: z.number().int().positive().optional(),
});
/** What the email warnings dialog lists before an email is used (issue: emails). */
export const emailWarningCodes = [
  'emptySubject',
  'noUnsubscribeLink',
  'noMailingAddress',
  'unknownMergeTag',
  'brokenMergeTag',
] as const;
export type EmailWarningCode = (typeof emailWarningCodes)[number];
export const EmailWarning = z.object({ code: z.enum(emailWarningCodes), message: z.string() });
export type EmailWarning = z.infer<typeof EmailWarning>;
export const emailWarningMessages = {
  emptySubject: 'The subject is empty.',
  noUnsubscribeLink:
    'There is no unsubscribe link. Add {{ unsubscribe_url }}: people must be able to opt out, and mailbox providers require it.',
  noMailingAddress:
    'There is no mailing address. Add {{ account.mailingAddress }}: anti-spam laws ask for a postal address in every marketing email.',
  unknownMergeTag: (tag: string) =>
    `{{ ${tag} }} is not a field of your people: it prints its fallback, or nothing.`,
} as const;

export const RenderedEmail = z.object({
  subject: z.string(),
  html: z.string(),
  text: z.string(),
  /** The person rendered for; null when sample data was used. */
  personId: z.number().int().nullable(),
  warnings: z.array(EmailWarning),
});
export type RenderedEmail = z.infer<typeof RenderedEmail>;

/** A starter template from the gallery (written for Herald, shipped with it). */
export const EmailTemplate = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  editorType: z.enum(emailEditorTypes),
  subject: z.string(),
  preheader: z.string(),
  html: z.string(),
  /** Editor state to start from (drag-and-drop project or rich-text document); null for HTML code. */
  state: z.unknown().nullable(),
});
export type EmailTemplate = z.infer<typeof EmailTemplate>;
export const EmailTemplateList = z.object({ templates: z.array(EmailTemplate) });

/** A merge tag as the picker offers it: the Liquid to insert and what it stands for. */
export interface MergeTag {
  label: string;
  liquid: string;
  group: 'person' | 'account' | 'links';
}

/** Liquid for a person field, quoting names that are not plain identifiers. */
export function personMergeTag(fieldName: string, fallback?: string): string {
  const path = /^[A-Za-z_][A-Za-z0-9_]*$/.test(fieldName)
    ? `person.${fieldName}`
    : `person[${JSON.stringify(fieldName)}]`;
  return fallback === undefined ? `{{ ${path} }}` : `{{ ${path} | default: ${JSON.stringify(fallback)} }}`;
}

/** The account and link tags every email can use. */
export const accountMergeTags: MergeTag[] = [
  { label: 'Account name', liquid: '{{ account.name }}', group: 'account' },
  { label: 'Mailing address', liquid: '{{ account.mailingAddress }}', group: 'account' },
  { label: 'Site', liquid: '{{ account.site }}', group: 'account' },
  { label: 'Unsubscribe link', liquid: '{{ unsubscribe_url }}', group: 'links' },
  { label: 'Preferences link', liquid: '{{ preferences_url }}', group: 'links' },
  { label: 'View in browser link', liquid: '{{ view_in_browser_url }}', group: 'links' },
];
