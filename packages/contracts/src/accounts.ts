import { z } from 'zod';
import { messages } from './messages.ts';
import { scopeIds } from './scopes.ts';
import {
  estimatedContactsOptions,
  isValidSite,
  passwordMaxLength,
  passwordMinLength,
} from './registration.ts';
import { AccountPayment } from './plans.ts';
import { TrackingUnknownTraits } from './tracking-api.ts';

/** Largest string any account text field accepts; longer input is a 400, never a write. */
const shortText = (max = 200) => z.string().trim().max(max, `Must be at most ${max} characters.`);

export const EmailAddress = z
  .string()
  .trim()
  .max(254, 'Email must be at most 254 characters.')
  .pipe(z.email('Enter a valid email address.'));

export const Password = z
  .string()
  .min(passwordMinLength, messages.passwordTooShort)
  .max(passwordMaxLength, `Password must be at most ${passwordMaxLength} characters.`);

export const IdToken = z.string().min(1).max(8192);

/** IANA time-zone name known to this runtime. */
export const TimeZone = z
  .string()
  .max(64)
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, 'Unknown time zone.');

export const Site = z.string().trim().max(2048).refine(isValidSite, messages.doubleCheckSite);

export const accountStatuses = ['trial', 'trialExpired', 'active', 'canceled', 'blocked'] as const;
export const AccountStatus = z.enum(accountStatuses);
export type AccountStatus = z.infer<typeof AccountStatus>;

export const onboardingActions = ['import', 'apps', 'flow', 'help'] as const;
export const OnboardingAction = z.enum(onboardingActions);

export const AccountFlags = z.object({
  hasFilledGoals: z.boolean(),
  hasSetInitialPassword: z.boolean(),
  canAccessAIWriter: z.boolean(),
  hideAnonymous: z.boolean(),
});
export type AccountFlags = z.infer<typeof AccountFlags>;

/** Flags a user may set through PATCH /accounts/me; the others are the server's to decide. */
export const WritableAccountFlags = z.strictObject({
  hasFilledGoals: z.boolean().optional(),
  hideAnonymous: z.boolean().optional(),
});

export const PeopleTableField = z.strictObject({ name: shortText(100).min(1), enabled: z.boolean() });
export const EmailFont = z.strictObject({ family: shortText(100).min(1), url: z.url().max(2048) });

export const ScopeStateSchema = z.object({ id: z.enum(scopeIds), enabled: z.boolean() });

export const TeamMember = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  email: z.string(),
  accountId: z.number().int(),
  data: z.object({ createdWithGoogleSignin: z.boolean() }),
  accountData: z.object({ isOwner: z.boolean(), scopes: z.array(ScopeStateSchema) }),
});
export type TeamMember = z.infer<typeof TeamMember>;

export const AccountSummary = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  site: z.string().nullable(),
  logo: z.string().nullable(),
});

/** GET /v1/accounts (docs/team-and-accounts.md). */
export const Account = z.object({
  accountId: z.number().int(),
  mainAccountId: z.number().int(),
  name: z.string().nullable(),
  accountName: z.string().nullable(),
  email: z.string(),
  phone: z.string().nullable(),
  site: z.string().nullable(),
  industry: z.string().nullable(),
  estimatedContacts: z.string().nullable(),
  goals: z.string().nullable(),
  previousTool: z.string().nullable(),
  timezone: z.string(),
  logo: z.string().nullable(),
  emailFonts: z.array(EmailFont),
  status: AccountStatus,
  approved: z.boolean(),
  blocked: z.boolean(),
  testAccount: z.boolean(),
  peopleCount: z.number().int(),
  writeKey: z.string(),
  mailingAddress: z.string().nullable(),
  linkUTMs: z.boolean(),
  /** Sender that new emails start with (Settings → Email → General). */
  defaultFromName: z.string().nullable(),
  defaultFromEmail: z.string().nullable(),
  activeServices: z.array(z.string()),
  peopleTableFields: z.array(z.object({ name: z.string(), enabled: z.boolean() })),
  formFieldMappings: z.record(z.string(), z.record(z.string(), z.string())),
  /** The Tracking API's traits that name no person field: dropped, or made custom fields (docs/tracking-and-metrics.md). */
  trackingUnknownTraits: TrackingUnknownTraits,
  onboarding: z.partialRecord(OnboardingAction, z.literal(true)),
  flags: AccountFlags,
  /** The plan and how it is paid; null when billing is off on the server (BILLING_MODE=off). */
  payment: AccountPayment.nullable(),
  createdAt: z.string(),
  trialEndsAt: z.string(),
  teamMemberId: z.number().int(),
  teamMember: TeamMember,
  allAccounts: z.array(AccountSummary),
});
export type Account = z.infer<typeof Account>;

/** POST /v1/accounts/ — starts registration with an email, or a Google ID token. */
export const CreateAccountBody = z
  .strictObject({
    email: EmailAddress.optional(),
    idToken: IdToken.optional(),
    source: shortText(200).optional(),
    timezone: TimeZone.optional(),
  })
  .refine((b) => b.email !== undefined || b.idToken !== undefined, {
    message: messages.missingRegistrationEmail,
    path: ['email'],
  });
export type CreateAccountBody = z.infer<typeof CreateAccountBody>;

/** PATCH /v1/accounts/me — partial update; registration fields included. */
export const UpdateAccountBody = z.strictObject({
  name: shortText(200).optional(),
  site: z.union([z.literal(''), Site]).optional(),
  phone: shortText(50).optional(),
  timezone: z.union([z.literal(''), TimeZone]).optional(),
  mailingAddress: shortText(1000).optional(),
  logo: z.union([z.literal(''), z.url().max(2048)]).optional(),
  industry: shortText(100).optional(),
  estimatedContacts: z
    .enum(estimatedContactsOptions, 'Choose one of the estimated-contacts options.')
    .optional(),
  goals: shortText(5000).optional(),
  previousTool: shortText(200).optional(),
  linkUTMs: z.boolean().optional(),
  defaultFromName: shortText(200).optional(),
  defaultFromEmail: z.union([z.literal(''), EmailAddress]).optional(),
  onboarding: z.partialRecord(OnboardingAction, z.literal(true)).optional(),
  flags: WritableAccountFlags.optional(),
  peopleTableFields: z.array(PeopleTableField).max(500).optional(),
  formFieldMappings: z
    .record(shortText(200), z.record(shortText(200), shortText(200)))
    .refine((m) => Object.keys(m).length <= 500, 'Too many form mappings.')
    .optional(),
  emailFonts: z.array(EmailFont).max(50).optional(),
  trackingUnknownTraits: TrackingUnknownTraits.optional(),
});
export type UpdateAccountBody = z.infer<typeof UpdateAccountBody>;

export const InitialPasswordBody = z.strictObject({ password: Password });
export const LoginBody = z.strictObject({
  email: z.string().trim().min(1, messages.missingEmailOrPassword).max(254),
  password: z.string().min(1, messages.missingEmailOrPassword).max(passwordMaxLength),
});
export type LoginBody = z.infer<typeof LoginBody>;
export const GoogleLoginBody = z.strictObject({ idToken: IdToken });
export const RequestResetBody = z.strictObject({ email: EmailAddress });
export const ResetPasswordBody = z.strictObject({ token: z.string().min(1).max(1000), password: Password });
export const MessageResponse = z.object({ message: z.string() });

export const HeartbeatResponse = z.object({ ok: z.literal(true), accountId: z.number().int() });

/** GET /v1/config — what the web needs to know before anyone signs in. */
export const PublicConfig = z.object({
  productName: z.string(),
  googleClientId: z.string().nullable(),
  devMailbox: z.boolean(),
  /** Where Get Help and the other help links point; null hides them. */
  supportUrl: z.string().nullable(),
  /** Address for the trial-extension and contact-us mail links; null hides them. */
  supportEmail: z.string().nullable(),
});
export type PublicConfig = z.infer<typeof PublicConfig>;

/** POST /v1/logging — an error report from the web. */
/** Text of at most `max` characters from whatever a client sent: strings as they are, anything else as JSON. */
function clip(value: unknown, max: number): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value.slice(0, max);
  try {
    return (JSON.stringify(value) ?? String(value)).slice(0, max);
  } catch {
    return String(value).slice(0, max);
  }
}

/**
 * POST /v1/logging: whatever a client manages to send when it is failing — `{message}`, `{error: {message,
 * stack, name, ...}}`, a string, nested objects — becomes one bounded report; nothing is refused.
 */
export const LogBody = z.unknown().transform((raw) => {
  const body = (typeof raw === 'object' && raw !== null ? raw : { message: raw }) as Record<string, unknown>;
  const error = (typeof body.error === 'object' && body.error !== null ? body.error : {}) as Record<
    string,
    unknown
  >;
  return {
    message: clip(body.message ?? error.message ?? body.error ?? body.msg, 5000) ?? 'No message',
    name: clip(body.name ?? error.name, 200),
    stack: clip(body.stack ?? error.stack, 20000),
    url: clip(body.url ?? body.href, 2048),
    userAgent: clip(body.userAgent, 1000),
    extra: clip(body.extra ?? body.context, 10000),
  };
});

export const MailboxMessage = z.object({
  id: z.number().int(),
  to: z.string(),
  from: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string().nullable(),
  createdAt: z.string(),
});
export const MailboxList = z.object({ messages: z.array(MailboxMessage) });
export type MailboxMessage = z.infer<typeof MailboxMessage>;
