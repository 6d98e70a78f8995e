import { z } from 'zod';
import { EmailAddress } from './accounts.ts';
import { invalidDomainName, reduceDomain } from './domains.ts';

/** Messages of senders, domains, suppressions, categories and preferences (docs/senders-and-consent.md). */
export const sendingMessages = {
  notVerified: (address: string) => `Address ${address} has not been verified for sending email.`,
  /** The account alert of a mail server that cannot be reached (connect, TLS or login), after repeated attempts. */
  mailServerAlert: (cause: string) =>
    `Mail is not going out: ${cause}. Sends wait and are tried again every few minutes; whoever runs Herald should check SMTP_URL and its TLS settings.`,
  verificationSent: 'Verification email sent',
  addressAdded: 'Sender address added. Check its inbox for the verification link.',
  addressNotFound: 'Sender address not found.',
  addressRemoved: 'Sender address removed.',
  verificationLinkInvalid:
    'This verification link is invalid or has expired. Send a new one from Settings → Email → Sender addresses.',
  verificationLinkUsed: 'This verification link has already been used.',
  addressVerified: (address: string) => `${address} is verified: you can send from it.`,
  invalidDomain: invalidDomainName,
  domainExists: 'This domain is already added.',
  domainNotFound: 'Domain not found.',
  reallyDelete: 'Really delete?',
  addDomainError: "We couldn't add this domain.",
  verifyDomainError: "We couldn't verify this domain.",
  deleteDomainError: "We couldn't delete this domain.",
  addressesLoadError: "We couldn't load your sender addresses.",
  domainsLoadError: "We couldn't load your domains.",
  addAddressError: "We couldn't add this address.",
  removeAddressError: "We couldn't remove this address.",
  sendVerificationError: "We couldn't send the verification email.",
  domainVerified: 'Domain verified: every address on it can send.',
  domainNotVerified: 'Some records are not right yet. See what to change below.',
  domainCouldNotCheck:
    'We could not check every record: the DNS server did not answer. Try again in a few minutes.',
  categoryUpdated: 'Category updated.',
  categoryCreated: 'Category created.',
  categoryNotFound: 'Category not found.',
  categoryNameNeeded: 'Category name is needed.',
  categoryNameTaken: 'A category with this name already exists.',
  defaultCategoryArchived:
    'The default category cannot be archived. Make another category the default first.',
  archivedCategoryDefault: 'An archived category cannot be the default.',
  categoriesLoadError: "We couldn't load your categories.",
  categorySaveError: "We couldn't save this category.",
  preferencesUpdated: 'Preferences updated.',
  preferencesError: 'Error while updating communication preferences.',
  preferencesLoadError: "We couldn't load your preferences.",
  linkInvalid: 'This link is invalid or has expired. Use the link in a more recent email from the sender.',
  unknownCategory: (id: string) => `Category ${id} does not exist.`,
  transactionalCategory: (name: string) => `"${name}" messages are always sent: they cannot be opted out of.`,
  unsubscribed: 'You are unsubscribed. You will not receive marketing emails from us any more.',
  unsubscribeError: "We couldn't unsubscribe you. Please try again.",
  suppressionAdded: (n: number) => (n === 1 ? 'Address suppressed.' : `${n} addresses suppressed.`),
  suppressionRemoved: 'Address removed from the suppression list.',
  suppressionNotFound: 'This address is not on the suppression list.',
  suppressionsLoadError: "We couldn't load the suppression list.",
  suppressionSaveError: "We couldn't change the suppression list.",
} as const;

// ---------------------------------------------------------------------------------------------
// Sender addresses (docs/senders-and-consent.md)

export const senderAddressStatuses = ['verified', 'pending'] as const;

/** Email address verification (docs/senders-and-consent.md). `data.verifiedBy` says whether the address or its domain proved it. */
export const SenderAddress = z.object({
  email: z.string(),
  status: z.enum(senderAddressStatuses),
  accountId: z.number().int(),
  data: z.object({
    verifiedBy: z.enum(['address', 'domain']).nullable(),
    verificationSentAt: z.string().nullable(),
  }),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type SenderAddress = z.infer<typeof SenderAddress>;
export const SenderAddressList = z.object({ emails: z.array(SenderAddress) });
export const SenderAddressResponse = z.object({ email: SenderAddress, message: z.string() });
export const AddSenderAddressBody = z.strictObject({ email: EmailAddress });
/** POST /v1/settings/email/addresses/verification: (re)send the verification mail to these addresses. */
export const SendVerificationBody = z.strictObject({
  emails: z
    .array(EmailAddress)
    .min(1, 'Name at least one address.')
    .max(20, 'At most 20 addresses at a time.'),
});
export const SenderAddressParams = z.object({ email: z.string().trim().min(1).max(254) });
/** POST /v1/sender-verification: the token of the link in the verification mail. */
export const ConfirmSenderBody = z.strictObject({ token: z.string().min(1).max(2000) });
export const ConfirmSenderResponse = z.object({ email: z.string(), message: z.string() });

// ---------------------------------------------------------------------------------------------
// Domains (docs/senders-and-consent.md)

export const dnsRecordKinds = ['dkim', 'spf', 'dmarc', 'returnPath'] as const;
/**
 * pass: as it should be. missing: nothing published. mismatch: published but different. invalid: published
 * but broken (two SPF records, over 10 lookups, DMARC without p=). unknown: the DNS server did not answer.
 * unchecked: not checked yet.
 */
export const dnsRecordStatuses = ['pass', 'missing', 'mismatch', 'invalid', 'unknown', 'unchecked'] as const;
export type DnsRecordStatus = (typeof dnsRecordStatuses)[number];

export const DnsRecordCheck = z.object({
  kind: z.enum(dnsRecordKinds),
  type: z.enum(['TXT', 'CNAME']),
  /** The full name to publish the record at. */
  host: z.string(),
  /** The value to publish (for SPF: the mechanism the record must contain, or a whole record when none exists). */
  value: z.string(),
  required: z.boolean(),
  status: z.enum(dnsRecordStatuses),
  /** What is wrong, in words, when the status is not pass. */
  problems: z.array(z.string()),
  /** The values found at the host. */
  found: z.array(z.string()),
});
export type DnsRecordCheck = z.infer<typeof DnsRecordCheck>;

/** verified: every required record passed; pending: not yet; failing: was verified, a later check failed. */
export const domainStatuses = ['verified', 'pending', 'failing'] as const;

export const SenderDomain = z.object({
  id: z.number().int(),
  domain: z.string(),
  /** The Unicode spelling, for display. */
  displayName: z.string(),
  status: z.enum(domainStatuses),
  dkimSelector: z.string(),
  records: z.array(DnsRecordCheck),
  /** False when the last check could not reach the DNS server for some record. */
  lastCheckComplete: z.boolean(),
  checkedAt: z.string().nullable(),
  verifiedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type SenderDomain = z.infer<typeof SenderDomain>;
export const SenderDomainList = z.object({ domains: z.array(SenderDomain) });
export const SenderDomainResponse = z.object({ domain: SenderDomain });
export const VerifyDomainResponse = z.object({ domain: SenderDomain, message: z.string() });
/** POST /v1/settings/email/domains: anything a user types that reduces to a domain (domains.ts). */
export const AddDomainBody = z.strictObject({
  domain: z
    .string({ error: invalidDomainName })
    .max(1000, invalidDomainName)
    .transform((value, ctx) => {
      const domain = reduceDomain(value);
      if (!domain) {
        ctx.addIssue({ code: 'custom', message: invalidDomainName });
        return z.NEVER;
      }
      return domain;
    }),
});

// ---------------------------------------------------------------------------------------------
// Suppression list

/** Reasons a team member may give when adding addresses; 'erased' is only the system's (docs/people.md). */
export const addableSuppressionReasons = [
  'unsubscribed',
  'hard-bounce',
  'complaint',
  'manual',
  'invalid',
] as const;
export const suppressionReasons = [...addableSuppressionReasons, 'erased'] as const;
export type SuppressionReason = (typeof suppressionReasons)[number];
export const suppressionReasonLabels: Record<SuppressionReason, string> = {
  unsubscribed: 'Unsubscribed',
  'hard-bounce': 'Hard bounce',
  complaint: 'Spam complaint',
  manual: 'Added manually',
  invalid: 'Invalid address',
  erased: 'Erased on request',
};
/** Reasons that stop transactional mail too: the address does not work, or the account said never. */
export const suppressesTransactional: Record<SuppressionReason, boolean> = {
  unsubscribed: false,
  // Someone who reported mail as spam gets no more mail of any kind from the account (issue 17).
  complaint: true,
  'hard-bounce': true,
  invalid: true,
  manual: true,
  // An address erased on request (docs/people.md, "Export and erase") is never mailed again.
  erased: true,
};

export const Suppression = z.object({
  email: z.string(),
  reason: z.enum(suppressionReasons),
  /** Where it came from: one-click, link, preference-centre, import, api, team member's email, a delivery. */
  source: z.string(),
  note: z.string().nullable(),
  personId: z.number().int().nullable(),
  createdAt: z.string(),
});
export type Suppression = z.infer<typeof Suppression>;
export const SuppressionListQuery = z.object({
  search: z.string().trim().max(254).optional(),
  reason: z.enum(suppressionReasons).optional(),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
});
export const suppressionPageSize = 100;
export const SuppressionList = z.object({
  suppressions: z.array(Suppression),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export const AddSuppressionsBody = z.strictObject({
  emails: z
    .array(EmailAddress)
    .min(1, 'Name at least one address.')
    .max(1000, 'At most 1,000 addresses at a time.'),
  reason: z.enum(addableSuppressionReasons).default('manual'),
  note: z.string().trim().max(500, 'Note must be at most 500 characters.').optional(),
});
export const AddSuppressionsResponse = z.object({ added: z.number().int(), message: z.string() });
export const SuppressionParams = z.object({ email: z.string().trim().min(1).max(254) });
export const RemoveSuppressionQuery = z.object({
  note: z.string().trim().max(500, 'Note must be at most 500 characters.').optional(),
});
export const SuppressionHistoryEntry = z.object({
  email: z.string(),
  action: z.enum(['added', 'removed']),
  reason: z.enum(suppressionReasons),
  source: z.string(),
  note: z.string().nullable(),
  at: z.string(),
});
export const SuppressionHistory = z.object({ history: z.array(SuppressionHistoryEntry) });
export const SuppressionHistoryQuery = z.object({ email: z.string().trim().max(254).optional() });

// ---------------------------------------------------------------------------------------------
// Communication categories (docs/senders-and-consent.md)

export const categoryTypes = ['marketing', 'transactional'] as const;
export type CategoryType = (typeof categoryTypes)[number];

export const CommunicationCategory = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  type: z.enum(categoryTypes),
  accountId: z.number().int(),
  isDefault: z.boolean(),
  isArchived: z.boolean(),
  createdAt: z.string(),
});
export type CommunicationCategory = z.infer<typeof CommunicationCategory>;
export const CategoryList = z.object({ categories: z.array(CommunicationCategory) });
export const CategoryResponse = z.object({ category: CommunicationCategory });
export const CategoryUpdateResponse = z.object({ category: CommunicationCategory, message: z.string() });
/** Per category: emails filed under it, people who opted in, people who opted out. */
export const CategoryCounts = z.object({
  counts: z.array(
    z.object({
      id: z.number().int(),
      emails: z.number().int(),
      optedIn: z.number().int(),
      optedOut: z.number().int(),
    }),
  ),
});
const categoryName = z
  .string({ error: sendingMessages.categoryNameNeeded })
  .trim()
  .min(1, sendingMessages.categoryNameNeeded)
  .max(100, 'Category name must be at most 100 characters.');
const categoryDescription = z.string().trim().max(500, 'Description must be at most 500 characters.');
export const CreateCategoryBody = z.strictObject({
  name: categoryName,
  description: categoryDescription.default(''),
  type: z.enum(categoryTypes).default('marketing'),
});
export const UpdateCategoryBody = z.strictObject({
  name: categoryName.optional(),
  description: categoryDescription.optional(),
  isArchived: z.boolean().optional(),
  isDefault: z.literal(true).optional(),
});

// ---------------------------------------------------------------------------------------------
// Communication preferences (docs/senders-and-consent.md)

export const preferenceValues = ['optIn', 'optOut', 'unspecified'] as const;
export type PreferenceValue = (typeof preferenceValues)[number];
export const TokenQuery = z.object({
  token: z
    .string({ error: sendingMessages.linkInvalid })
    .min(1, sendingMessages.linkInvalid)
    .max(2000, sendingMessages.linkInvalid),
});
export const PreferenceCategory = CommunicationCategory.pick({
  id: true,
  name: true,
  description: true,
  type: true,
});
export const CommunicationPreferences = z.object({
  /** The category of the email the link came from, when it had one. */
  categoryId: z.number().int().nullable(),
  site: z.string().nullable(),
  accountName: z.string(),
  logo: z.string().nullable(),
  accountId: z.number().int(),
  categoriesForPerson: z.record(z.string(), z.enum(preferenceValues)),
  categories: z.array(PreferenceCategory),
  person: z.object({ email: z.string() }),
  /** On the suppression list as unsubscribed from all marketing. */
  unsubscribedFromAll: z.boolean(),
});
export type CommunicationPreferences = z.infer<typeof CommunicationPreferences>;
/** POST /v1/communication-preferences: category id → optIn, optOut or unspecified. */
export const SavePreferencesBody = z.record(
  z.string().regex(/^\d{1,15}$/, 'Categories are named by their numeric id.'),
  z.enum(preferenceValues, { error: 'Each category is optIn, optOut or unspecified.' }),
);
export const UnsubscribeResponse = z.object({ message: z.string(), accountName: z.string() });
