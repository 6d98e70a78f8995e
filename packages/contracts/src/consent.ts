import { z } from 'zod';

/**
 * Double opt-in and proof of consent (docs/senders-and-consent.md): the account's setting, the confirm link's
 * calls, and a person's consent history.
 */

export const consentActions = ['subscribe', 'confirm', 'unsubscribe', 'preferences'] as const;
export const consentSources = [
  'form',
  'api',
  'import',
  'preference-centre',
  'one-click',
  'unsubscribe-link',
  'confirmation-link',
  'manual',
] as const;
export type ConsentAction = (typeof consentActions)[number];
export type ConsentSource = (typeof consentSources)[number];

export const consentActionLabels: Record<ConsentAction, string> = {
  subscribe: 'Subscribed',
  confirm: 'Confirmed',
  unsubscribe: 'Unsubscribed',
  preferences: 'Changed preferences',
};
export const consentSourceLabels: Record<ConsentSource, string> = {
  form: 'Site form',
  api: 'API',
  import: 'Import',
  'preference-centre': 'Preference centre',
  'one-click': 'One-click unsubscribe',
  'unsubscribe-link': 'Unsubscribe link',
  'confirmation-link': 'Confirmation link',
  manual: 'Added by the team',
};

export const consentLimits = { tokenDays: 7, consentTextLength: 2000 } as const;

export const consentMessages = {
  /** What a person agrees to when a form has no consent text of its own. */
  defaultConsentText: 'I agree to receive marketing email from this sender and can unsubscribe at any time.',
  apiConsentText:
    'Subscribed through the API by the account, which is responsible for the consent it collected.',
  confirmed: 'Thank you, your subscription is confirmed.',
  alreadyConfirmed: 'Your subscription was already confirmed. There is nothing more to do.',
  linkInvalid:
    'This confirmation link is not valid. Copy the whole link from the email, or ask for a new one.',
  linkExpired: `This confirmation link has expired (links work for ${consentLimits.tokenDays} days). Ask for a new email below.`,
  resent: 'A new confirmation email is on its way. Use the link in it within 7 days.',
  notPending: 'There is nothing to confirm for this address any more.',
  confirmError: 'Your subscription could not be confirmed. Try again in a moment.',
  personNotFound: 'Person not found.',
  formKeyInvalid: 'Each form override needs the form’s key (1 to 500 characters).',
  emailNotFound: 'The confirmation email was not found. Choose one of your emails or the built-in one.',
  confirmationSubject: 'Please confirm your subscription',
  /** The account alert when a confirmation email cannot be sent (the account's settings, not a passing fault). */
  confirmationAlert: (cause: string) =>
    `Confirmation emails cannot be sent: ${cause} People who sign up wait to confirm without the email. Once this is fixed, send theirs again from each person's page (Consent history).`,
  resentByTeam: 'A new confirmation email is on its way to this person.',
  resendLimited: 'This person was sent 3 confirmation emails in the last hour. Try again later.',
} as const;

export const FormConsent = z.object({
  doubleOptIn: z.boolean().nullable(),
  consentText: z.string().trim().max(consentLimits.consentTextLength).nullable(),
});
export type FormConsent = z.infer<typeof FormConsent>;

/** GET/PUT /v1/settings/double-opt-in. */
export const DoubleOptInSettings = z.object({
  doubleOptIn: z.boolean(),
  /**
   * Per form, by its key (its id, else its hash: Site tracking's form list): double opt-in on or off, overriding the
   * account's setting (null: the account's), and the consent text the form shows (null: the default text).
   */
  forms: z.record(
    z.string().min(1, consentMessages.formKeyInvalid).max(500, consentMessages.formKeyInvalid),
    FormConsent,
  ),
  /** A saved email sent as the confirmation (its `{{ person.confirmationUrl }}` is the link); null: the built-in one. */
  confirmationEmailId: z.number().int().positive().nullable(),
});
export type DoubleOptInSettings = z.infer<typeof DoubleOptInSettings>;

export const ConfirmBody = z.object({
  token: z.string().min(1, consentMessages.linkInvalid).max(2000, consentMessages.linkInvalid),
});
export const ConfirmResponse = z.object({
  status: z.enum(['confirmed', 'alreadyConfirmed']),
  message: z.string(),
  accountName: z.string(),
});
export type ConfirmResponse = z.infer<typeof ConfirmResponse>;
export const ResendResponse = z.object({ message: z.string() });

export const ConsentRecord = z.object({
  id: z.number().int(),
  at: z.string(),
  action: z.enum(consentActions),
  source: z.enum(consentSources),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  consentText: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
});
export type ConsentRecord = z.infer<typeof ConsentRecord>;
export const ConsentHistory = z.object({
  /** 'pending' while the person has not confirmed; 'confirmed' once they have; null when double opt-in never applied. */
  status: z.enum(['pending', 'confirmed']).nullable(),
  records: z.array(ConsentRecord),
});
export type ConsentHistory = z.infer<typeof ConsentHistory>;
